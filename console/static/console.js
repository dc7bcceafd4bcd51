// SPDX-License-Identifier: GPL-2.0-or-later
// rdmaguard-console's page: log in, draw the room (one tile a seat, laid out from its label or
// the room-layout file), follow the server-sent events, show a seat, record a referee's note.
// Every value from the store was written by a seat, and a seat may be the cheater's: text goes
// in with textContent and attributes with setAttribute, never through innerHTML.
"use strict";

const STATES = ["incident", "silent", "weak", "suspicious", "ok"];
let session = null;
let layout = null;
const tiles = new Map();
let roomBusy = false, roomAgain = false, openSeat = null, events = null;

const $ = (id) => document.getElementById(id);

// An element with attributes and children (strings become text nodes).
function el(tag, attrs, ...children) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v !== null && v !== undefined && v !== false)
			e.setAttribute(k, v === true ? "" : String(v));
	}
	for (const c of children) {
		if (c === null || c === undefined)
			continue;
		e.append(c instanceof Node ? c : document.createTextNode(String(c)));
	}
	return e;
}

function text(v) {
	if (v === null || v === undefined || v === "")
		return "-";
	if (Array.isArray(v))
		return v.length ? v.join(", ") : "-";
	return String(v);
}

function status(msg) {
	$("status").textContent = msg;
}

async function api(path, body) {
	const opts = { credentials: "same-origin", headers: {} };
	if (body !== undefined) {
		opts.method = "POST";
		opts.headers["Content-Type"] = "application/json";
		if (session && session.csrf)
			opts.headers["X-CSRF-Token"] = session.csrf;
		opts.body = JSON.stringify(body);
	}
	const r = await fetch(path, opts);
	let data = null;
	try {
		data = await r.json();
	} catch (e) {
		data = null;
	}
	if (r.status === 401 && path !== "/api/login") {
		showLogin();
		throw new Error("log in first");
	}
	if (!r.ok)
		throw new Error((data && data.error) || ("HTTP " + r.status));
	return data;
}

function showLogin() {
	session = null;
	if (events) {
		events.close();
		events = null;
	}
	$("room-view").hidden = true;
	$("seat-view").hidden = true;
	$("logout").hidden = true;
	$("who").textContent = "";
	$("login").hidden = false;
	$("login-user").focus();
}

async function login(ev) {
	ev.preventDefault();
	$("login-error").textContent = "";
	try {
		session = await api("/api/login", {
			user: $("login-user").value, password: $("login-password").value });
		$("login-password").value = "";
		start();
	} catch (e) {
		$("login-error").textContent = e.message;
	}
}

async function logout() {
	try {
		await api("/api/logout", {});
	} catch (e) {
		// the session is gone either way
	}
	showLogin();
}

// Row letters to a number: A 1 .. Z 26, AA 27 ...
function rowNumber(label) {
	let n = 0;
	for (const ch of label.toUpperCase())
		n = n * 26 + (ch.charCodeAt(0) - 64);
	return n;
}

// Where a seat goes: [grid row, grid column] (column 1 holds the row's label).
function place(seat, others) {
	if (layout && Object.prototype.hasOwnProperty.call(layout, seat.seat))
		return [layout[seat.seat][0], layout[seat.seat][1] + 1];
	if (seat.row_label && seat.seat_number !== null && seat.seat_number <= 1000)
		return [rowNumber(seat.row_label), seat.seat_number + 1];
	return [others.row, others.col++ + 1];
}

function tileTitle(s) {
	const parts = [s.seat + ": " + s.state];
	if (s.host_name)
		parts.push(s.host_name);
	if (s.open_incidents)
		parts.push(s.open_incidents + " open incident(s)");
	const open = s.open_info + s.open_low + s.open_medium + s.open_high + s.open_critical;
	if (open)
		parts.push(open + " open alert(s)");
	if (s.weak_reasons && s.weak_reasons.length)
		parts.push("weak: " + s.weak_reasons.join(", "));
	return parts.join(" · ");
}

function drawRoom(room) {
	const grid = $("room");
	const seen = new Set();
	const rows = new Map();
	let maxRow = 0;
	for (const s of room.seats)
		if (s.row_label)
			maxRow = Math.max(maxRow, rowNumber(s.row_label));
	if (layout)
		for (const k of Object.keys(layout))
			maxRow = Math.max(maxRow, layout[k][0]);
	const others = { row: maxRow + 1, col: 1 };
	const counts = Object.fromEntries(STATES.map((x) => [x, 0]));
	for (const s of room.seats) {
		seen.add(s.seat);
		counts[s.state] = (counts[s.state] || 0) + 1;
		let t = tiles.get(s.seat);
		if (!t) {
			t = el("button", { type: "button", class: "tile", "data-seat": s.seat,
				role: "gridcell" }, s.seat_number !== null ? String(s.seat_number) : s.seat);
			t.addEventListener("click", () => showSeat(s.seat));
			tiles.set(s.seat, t);
			grid.append(t);
		}
		const [r, c] = place(s, others);
		t.style.gridRow = String(r);
		t.style.gridColumn = String(c);
		if (t.getAttribute("data-state") !== s.state)
			t.setAttribute("data-state", s.state);
		t.title = tileTitle(s);
		t.setAttribute("aria-label", t.title);
		if (s.row_label && !rows.has(r))
			rows.set(r, s.row_label);
	}
	for (const [seat, t] of tiles) {
		if (!seen.has(seat)) {
			t.remove();
			tiles.delete(seat);
		}
	}
	for (const old of grid.querySelectorAll(".row-label"))
		old.remove();
	for (const [r, label] of rows) {
		const l = el("div", { class: "row-label" }, label);
		l.style.gridRow = String(r);
		l.style.gridColumn = "1";
		grid.append(l);
	}
	$("counts").textContent = room.seats.length + " seats: " +
		STATES.map((x) => counts[x] + " " + x).join(", ");
	grid.setAttribute("data-seats", String(room.seats.length));
	grid.setAttribute("data-updated", String(Date.now()));
}

async function refreshRoom() {
	if (roomBusy) {
		roomAgain = true;
		return;
	}
	roomBusy = true;
	try {
		do {
			roomAgain = false;
			drawRoom(await api("/api/room"));
			if (openSeat)
				await showSeat(openSeat, true);
		} while (roomAgain);
		status("");
	} catch (e) {
		status(e.message);
	} finally {
		roomBusy = false;
	}
}

function row(label, value) {
	return el("tr", null, el("th", null, label), el("td", null, text(value)));
}

function table(head, rows) {
	return el("table", null, el("thead", null, el("tr", null, ...head.map((h) => el("th", null, h)))),
		el("tbody", null, ...rows.map((r) => el("tr", null, ...r.map((c) => el("td", null, text(c)))))));
}

function reviewForm(body, label) {
	const note = el("textarea", { "aria-label": label, maxlength: 4000, required: true });
	const msg = el("span", { class: "error", role: "alert" });
	const form = el("form", { class: "review" }, note, el("button", { type: "submit" }, label), msg);
	form.addEventListener("submit", async (ev) => {
		ev.preventDefault();
		try {
			await api("/api/review", Object.assign({ note: note.value }, body));
			note.value = "";
			refreshRoom();
		} catch (e) {
			msg.textContent = e.message;
		}
	});
	return form;
}

function incidentBox(i) {
	const box = el("div", { class: "incident", "data-incident": i.incident_id,
		"data-verdict": String(i.verdict), "data-open": String(i.open) },
		el("h4", null, (i.verdict ? "Verdict: " : "") + text(i.summary)),
		el("p", null, "Incident ", el("code", null, i.incident_id), " · ", text(i.state),
			" · stage ", text(i.stage), " · ", text(i.severity), " · opened ",
			text(i.opened_at), i.reviewed_at ? " · reviewed " + i.reviewed_at : ""),
		table(["when", "what", "", "severity", "text", "detail", "by"],
			i.timeline.map((t) => [t.at, t.kind, t.what, t.severity, t.text, t.detail, t.who])));
	const links = el("p", null, el("a", { href: "/api/export?incident=" +
		encodeURIComponent(i.incident_id), download: "" }, "Export what the store holds"),
		" · the signed bundle, on the seat: ",
		el("code", null, "rdmaguard evidence export " + i.incident_id + " DIR"));
	box.append(links);
	if (session && session.role === "referee" && i.open)
		box.append(reviewForm({ incident_id: i.incident_id }, "Mark reviewed"));
	return box;
}

function drawSeat(d) {
	const o = d.overview || {}, id = d.identity || {};
	const seat = $("seat");
	const parts = [
		el("h2", null, "Seat ", el("span", { "data-seat-title": "" }, o.seat),
			" ", el("span", { class: "tile-key", "data-state": o.state }, o.state)),
		el("section", null, el("h3", null, "Identity"), el("table", null,
			row("host", id.host_name), row("machine id", id.host_id),
			row("addresses", id.host_ips), row("MAC", id.host_macs),
			row("agent", id.agent_version), row("policy sha256", id.policy_sha256),
			row("last heartbeat", id.last_heartbeat), row("last notice", id.last_notice),
			row("sender", id.sender_ip), row("game", o.game_running ? (id.game || "running") : "none"))),
		el("section", null, el("h3", null, "Hardware posture"), el("table", null,
			row("weak", id.weak_reasons), row("weak since", id.weak_since),
			row("fingerprint", id.fingerprint), row("PCI serial numbers", id.pci_dsns),
			row("identity changed", id.identity_changed_at))),
		el("section", null, el("h3", null, "Incidents"),
			d.incidents.length ? null : el("p", null, "none"),
			...d.incidents.map(incidentBox)),
		el("section", null, el("h3", null, "Recent alerts"), table(
			["received", "rule", "severity", "process", "message", "peers", "incident", "reviewed"],
			d.alerts.map((a) => [a.received_at, a.rule_id, a.severity, a.process_name, a.message,
				a.peer_ips, a.incident_id, a.reviewed ? "yes" : "no"]))),
		el("section", null, el("h3", null, "Notes"), table(["when", "by", "account", "incident", "note"],
			d.notes.map((n) => [n.recorded_at, n.reviewer, n.account, n.incident_id, n.note]))),
	];
	if (session && session.role === "referee")
		parts[5].append(reviewForm({ seat: o.seat }, "Mark the seat's alerts reviewed"));
	seat.replaceChildren(...parts);
}

async function showSeat(label, quiet) {
	openSeat = label;
	try {
		const d = await api("/api/seat?seat=" + encodeURIComponent(label));
		if (openSeat !== label)
			return;
		drawSeat(d);
		$("seat-view").hidden = false;
		if (!quiet)
			$("seat-close").focus();
	} catch (e) {
		status(e.message);
	}
}

function follow() {
	if (events)
		events.close();
	events = new EventSource("/api/events");
	events.addEventListener("change", () => refreshRoom());
	events.onerror = () => status("reconnecting...");
	events.onopen = () => status("");
}

async function start() {
	$("login").hidden = true;
	$("room-view").hidden = false;
	$("who").textContent = session.open ? "open console (loopback), read-only" :
		session.user + " (" + session.role + ")";
	$("logout").hidden = session.open;
	if (layout === null) {
		try {
			layout = (await api("/api/layout")) || false;
		} catch (e) {
			layout = false;
		}
	}
	await refreshRoom();
	follow();
}

document.addEventListener("DOMContentLoaded", async () => {
	$("login").addEventListener("submit", login);
	$("logout").addEventListener("click", logout);
	$("seat-close").addEventListener("click", () => {
		openSeat = null;
		$("seat-view").hidden = true;
	});
	// The silent state comes from the clock, not from an event: look again every 30 s.
	setInterval(() => { if (session) refreshRoom(); }, 30000);
	try {
		session = await api("/api/session");
		start();
	} catch (e) {
		showLogin();
	}
});
