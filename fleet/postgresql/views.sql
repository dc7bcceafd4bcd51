-- SPDX-License-Identifier: GPL-2.0-or-later
-- The fleet's answers over rdmaguard's central store (schema.sql): silent seats, whose RDMA peer
-- is which seat, cloned PCI serial numbers, hardware rare in the room, the alert timeline of a
-- seat or a match; and what the console reads: the room (seat_overview), a seat's alerts and
-- incidents, an incident's timeline, the referees' notes. Every one is backed by an index or by
-- the per-seat state; docs/fleet.md shows each with its output and its cost at 10,000 seats.
--
-- The console is told of a change by NOTIFY on channel rdmaguard_seats, the payload a seat's
-- label: every alert and incident record, and every notice but a heartbeat that changed
-- nothing (silence comes from the clock: read seat_overview again every few seconds).

SET ROLE rdmaguard_owner;
SET search_path = rdmaguard, pg_catalog;

CREATE OR REPLACE FUNCTION setting(name text) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT s.value FROM rdmaguard.settings s WHERE s.name = setting.name
$$;

-- Each seat that ever sent a heartbeat, as its latest notices describe it.
CREATE OR REPLACE VIEW seats AS
SELECT seat, last_heartbeat, last_heartbeat_ts, host_name, host_id, host_ips, host_macs,
       agent_version, fingerprint, pci_dsns
FROM rdmaguard.seat_state
WHERE last_heartbeat IS NOT NULL;

-- The seat keys the agents announced (rdmaguard.seat_key of every notice: start, heartbeats,
-- stop; docs/evidence.md): a row a seat and key, when first and last seen. The key a referee
-- verifies a seat's evidence bundle with; a seat with two keys was reinstalled, or is not the
-- machine it was.
CREATE OR REPLACE VIEW seat_keys AS
SELECT seat, doc #>> '{rdmaguard,seat_key,public}' AS public_key,
       doc #>> '{rdmaguard,seat_key,fingerprint}' AS fingerprint,
       min(received_at) AS first_seen, max(received_at) AS last_seen, count(*) AS notices
FROM rdmaguard.agent_events
WHERE doc #> '{rdmaguard,seat_key,public}' IS NOT NULL
GROUP BY 1, 2, 3;

-- Seats with no heartbeat for quiet (an agent stopped, a seat cut off), by the collector's
-- clock (a seat's own clock could lie): SELECT * FROM rdmaguard.silent_seats('5 minutes');
CREATE OR REPLACE FUNCTION silent_seats(quiet interval, at timestamptz DEFAULT now())
RETURNS TABLE (seat text, last_heartbeat timestamptz, silent_for interval)
LANGUAGE sql STABLE AS $$
	SELECT s.seat, s.last_heartbeat, at - s.last_heartbeat
	FROM rdmaguard.seat_state s
	WHERE s.last_heartbeat < at - quiet
	ORDER BY s.last_heartbeat, s.seat
$$;

-- The sentence rdma_peers and timeline() say about one peer of an alert.
-- STABLE as format() is: so declared, the planner inlines it into the views' rows.
CREATE OR REPLACE FUNCTION peer_verdict(seat text, rule_id text, rule_name text, peer inet,
					peer_seat text) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT format('seat %s: %s (%s) with RDMA peer %s, which is %s', seat, rule_id,
		      coalesce(rule_name, '?'), host(peer),
		      CASE WHEN peer_seat IS NULL THEN 'not a seat'
			   WHEN peer_seat = seat THEN 'this seat'
			   ELSE 'seat ' || peer_seat END)
$$;

-- The seat that held an address at an instant (seat_addresses, from the seats' host.ip[]): the
-- one holding it then, else the one that held it nearest in time (addresses move with DHCP).
CREATE OR REPLACE FUNCTION peer_seat(ip inet, at timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT a.seat FROM rdmaguard.seat_addresses a
	WHERE a.ip = peer_seat.ip
	ORDER BY greatest(extract(epoch FROM a.since - at),
			  extract(epoch FROM at - coalesce(a.until, at)), 0), a.seat
	LIMIT 1
$$;

-- Every RDMA peer address of an alert, and which seat it is. Bound it by received_at or ts:
--   SELECT verdict FROM rdmaguard.rdma_peers WHERE received_at > now() - interval '1 day';
-- It reads alert_peers (a row an alert and peer); the peer's seat is peer_seat()'s query,
-- written out: a subquery of the plan instead of a function called for every peer.
CREATE OR REPLACE VIEW rdma_peers AS
SELECT a.event_id, a.ts, a.received_at, a.seat, a.rule_id, a.severity, a.peer,
       w.seat AS peer_seat,
       rdmaguard.peer_verdict(a.seat, a.rule_id, a.rule_name, a.peer, w.seat) AS verdict
FROM rdmaguard.alert_peers a
LEFT JOIN LATERAL (
	SELECT h.seat FROM rdmaguard.seat_addresses h
	WHERE h.ip = a.peer
	ORDER BY greatest(extract(epoch FROM h.since - a.received_at),
			  extract(epoch FROM a.received_at - coalesce(h.until, a.received_at)), 0),
		 h.seat
	LIMIT 1) w ON true;

-- One PCI Device Serial Number reported by several seats: one donor card's identity cloned.
-- (seat_dsns: a row a seat and serial number, n the times the seat lists it. The serial
-- numbers on several seats first, from the index alone; only theirs are sorted, a seat as many
-- times as it lists it.)
CREATE OR REPLACE VIEW dsn_shared AS
SELECT g.dsn,
       ARRAY(SELECT d.seat FROM rdmaguard.seat_dsns d CROSS JOIN LATERAL generate_series(1, d.n)
	     WHERE d.dsn = g.dsn OR (d.dsn IS NULL AND g.dsn IS NULL)
	     ORDER BY d.seat) AS seats
FROM (SELECT x.dsn FROM rdmaguard.seat_dsns x GROUP BY x.dsn HAVING count(*) > 1) g;

-- The seats grouped by hardware fingerprint. A group is rare when it has at most the rare
-- share of the reporting seats (settings: fingerprint_rare_share, 5 %), at least 2, and fewer
-- seats than the largest group: a room of three hardware generations has three common groups,
-- and the seat with a card the others lack stands alone.
CREATE OR REPLACE VIEW fingerprint_groups AS
WITH g AS (
	SELECT fingerprint, count(*) AS seats FROM rdmaguard.seat_state
	WHERE fingerprint IS NOT NULL GROUP BY fingerprint),
t AS (SELECT sum(seats)::bigint AS total, max(seats) AS largest FROM g)
SELECT g.fingerprint, g.seats, t.total AS seats_reporting,
       round(g.seats::numeric / t.total, 4) AS share,
       g.seats <= greatest(2, floor(t.total *
			   rdmaguard.setting('fingerprint_rare_share')::numeric))
	AND g.seats < t.largest AS rare
FROM g, t;

-- The seats whose hardware fingerprint is rare in the room (fingerprint_groups), each with the
-- room's most common fingerprint for comparison.
CREATE OR REPLACE VIEW fingerprint_outliers AS
SELECT s.seat, s.fingerprint, g.seats AS fingerprint_seats, c.fingerprint AS fleet_fingerprint,
       c.seats AS fleet_seats, g.seats_reporting
FROM rdmaguard.seat_state s
JOIN rdmaguard.fingerprint_groups g ON g.fingerprint = s.fingerprint AND g.rare
CROSS JOIN LATERAL (SELECT f.fingerprint, f.seats FROM rdmaguard.fingerprint_groups f
		    ORDER BY f.seats DESC, f.fingerprint LIMIT 1) c;

-- A seat's alerts between two instants of its own clock, oldest first, each with its peers'
-- verdicts: what an organiser hands to a referee.
--   SELECT * FROM rdmaguard.timeline('B-12', '2026-12-07 14:00+00', '2026-12-07 15:00+00');
CREATE OR REPLACE FUNCTION timeline(seat text, starts timestamptz, ends timestamptz)
RETURNS TABLE (ts timestamptz, rule_id text, severity text, message text, peers text,
	       event_id uuid)
LANGUAGE sql STABLE AS $$
	SELECT a.ts, a.rule_id, a.severity, a.message,
	       (SELECT string_agg(rdmaguard.peer_verdict(a.seat, a.rule_id,
							a.doc #>> '{rule,name}', p.peer,
							rdmaguard.peer_seat(p.peer, a.received_at)),
				  '; ' ORDER BY p.peer)
		FROM unnest(a.peer_ips) AS p(peer)),
	       a.event_id
	FROM rdmaguard.alerts a
	WHERE a.seat = timeline.seat AND a.ts >= starts AND a.ts < ends
	ORDER BY a.ts, a.event_id
$$;

-- The same for every match window (rdmaguard.matches) and every seat in it.
CREATE OR REPLACE VIEW match_timeline AS
SELECT m.match_id, s.seat, t.ts, t.rule_id, t.severity, t.message, t.peers, t.event_id
FROM rdmaguard.matches m
CROSS JOIN LATERAL unnest(m.seats) AS s(seat)
CROSS JOIN LATERAL rdmaguard.timeline(s.seat, m.starts, m.ends) AS t;

---------------------------------------------------------------------------------------------------
-- The console's views.

-- The seat-level review notes: the latest per seat clears the seat's alerts received before it.
CREATE OR REPLACE VIEW seat_reviews AS
SELECT seat, max(recorded_at) AS reviewed_at
FROM rdmaguard.review_notes
WHERE incident_id IS NULL
GROUP BY seat;

-- Each incident with its review: open (for the room) while no note names it and it is not
-- closed, or closed within the open window.
CREATE OR REPLACE VIEW seat_incidents AS
SELECT i.incident_id, i.seat, i.state, i.stage, i.severity, i.severity_rank, i.verdict,
       i.summary, i.opened_at, i.updated_at, i.closed_at, i.last_ts, i.records,
       r.reviewed_at, r.notes,
       r.reviewed_at IS NULL AND (i.closed_at IS NULL OR i.closed_at >
				  now() - rdmaguard.setting('open_window')::interval) AS open,
       i.doc
FROM rdmaguard.incidents i
LEFT JOIN LATERAL (SELECT max(n.recorded_at) AS reviewed_at, count(*) AS notes
		   FROM rdmaguard.review_notes n WHERE n.incident_id = i.incident_id
		   HAVING count(*) > 0) r ON true;

-- A seat's alerts, newest first by the collector's clock, reviewed or not (a note on their
-- incident, or a note on the seat recorded after them):
--   SELECT * FROM rdmaguard.seat_alerts WHERE seat = 'B-12' ORDER BY received_at DESC LIMIT 50;
CREATE OR REPLACE VIEW seat_alerts AS
SELECT a.seat, a.received_at, a.ts, a.event_id, a.rule_id, a.severity, a.severity_rank,
       a.incident_id, a.game, a.process_name, a.message, a.peer_ips,
       (EXISTS (SELECT 1 FROM rdmaguard.review_notes n
		WHERE n.seat = a.seat AND n.incident_id IS NULL AND n.recorded_at >= a.received_at)
	OR (a.incident_id IS NOT NULL AND EXISTS (SELECT 1 FROM rdmaguard.review_notes n
						  WHERE n.incident_id = a.incident_id)))
	AS reviewed
FROM rdmaguard.alerts a;

-- An incident's story, oldest first: its records (opened, updated with the stage reached,
-- closed), its alerts, the referees' notes.
--   SELECT * FROM rdmaguard.incident_timeline WHERE incident_id = '...' ORDER BY at, kind;
CREATE OR REPLACE VIEW incident_timeline AS
SELECT e.incident_id, e.seat, e.received_at AS at, e.ts, 'record'::text AS kind,
       e.state AS what, e.severity, e.summary AS text, e.stage AS detail, NULL::text AS who,
       e.event_id
FROM rdmaguard.incident_events e
UNION ALL
SELECT a.incident_id, a.seat, a.received_at, a.ts, 'alert', a.rule_id, a.severity, a.message,
       a.process_name, NULL, a.event_id
FROM rdmaguard.alerts a
WHERE a.incident_id IS NOT NULL
UNION ALL
SELECT n.incident_id, n.seat, n.recorded_at, n.recorded_at, 'review', 'reviewed', NULL, n.note,
       n.account, n.reviewer, NULL
FROM rdmaguard.review_notes n
WHERE n.incident_id IS NOT NULL;

-- The open alerts of every seat that has some (seat_overview): counted by severity, received
-- within settings.open_window, after the seat's latest seat-level note, not of an incident a
-- note names. PL/pgSQL, so that the bound is a value when the query is planned: the planner
-- reads the one or two partitions it touches, not every day's (planning all of them cost more
-- than the counting). The notes are joined once above the partitions, not in each.
CREATE OR REPLACE FUNCTION open_alerts()
RETURNS TABLE (seat text, info bigint, low bigint, medium bigint, high bigint, critical bigint,
	       critical_in_game bigint, last_alert timestamptz)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
#variable_conflict use_column
DECLARE
	lo timestamptz := now() - rdmaguard.setting('open_window')::interval;
BEGIN
	RETURN QUERY
	SELECT a.seat,
	       count(*) FILTER (WHERE a.severity_rank = 0),
	       count(*) FILTER (WHERE a.severity_rank = 1),
	       count(*) FILTER (WHERE a.severity_rank = 2),
	       count(*) FILTER (WHERE a.severity_rank = 3),
	       count(*) FILTER (WHERE a.severity_rank = 4),
	       count(*) FILTER (WHERE a.severity_rank = 4 AND a.game IS NOT NULL),
	       max(a.received_at)
	FROM (SELECT x.seat, x.received_at, x.severity_rank, x.game, x.incident_id
	      FROM rdmaguard.alerts x
	      WHERE x.received_at > lo) a
	LEFT JOIN rdmaguard.seat_reviews r ON r.seat = a.seat
	LEFT JOIN (SELECT DISTINCT n.incident_id FROM rdmaguard.review_notes n
		   WHERE n.incident_id IS NOT NULL) ri ON ri.incident_id = a.incident_id
	WHERE (r.reviewed_at IS NULL OR a.received_at > r.reviewed_at) AND ri.incident_id IS NULL
	GROUP BY a.seat;
END
$$;

-- The room: one row per seat, all the console's tile needs. state is the first that holds of
--   incident    an open verdict-level incident, or an open critical alert during a game
--   silent      no heartbeat for settings.silent_after (or none ever)
--   weak        IOMMU off or weakened, or hardware nobody explained (posture alerts since the
--               agent's last start: weak_reasons)
--   suspicious  open alerts or open incidents below the verdict
--   ok
-- Open alerts: received within settings.open_window, after the seat's latest seat-level note,
-- and not of an incident a note names.
--   SELECT * FROM rdmaguard.seat_overview ORDER BY row_label, seat_number, seat;
CREATE OR REPLACE VIEW seat_overview AS
WITH cfg AS (
	SELECT now() AS at, rdmaguard.setting('silent_after')::interval AS silent_after,
	       rdmaguard.setting('open_window')::interval AS open_window),
oa AS (
	SELECT * FROM rdmaguard.open_alerts()),
oi AS (
	-- open, or closed within the window: two index scans (incidents_open, incidents_closed)
	SELECT i.seat, count(*) AS incidents, count(*) FILTER (WHERE i.verdict) AS verdicts
	FROM (SELECT x.incident_id, x.seat, x.verdict FROM rdmaguard.incidents x
	      WHERE x.closed_at IS NULL
	      UNION ALL
	      SELECT x.incident_id, x.seat, x.verdict FROM rdmaguard.incidents x CROSS JOIN cfg
	      WHERE x.closed_at > cfg.at - cfg.open_window) i
	WHERE NOT EXISTS (SELECT 1 FROM rdmaguard.review_notes n
			  WHERE n.incident_id = i.incident_id)
	GROUP BY i.seat),
v AS (
	SELECT s.*, cfg.at,
	       s.last_heartbeat IS NULL OR s.last_heartbeat < cfg.at - cfg.silent_after AS silent,
	       coalesce(s.games_running, 0) > 0 AS game_running,
	       coalesce(oa.info, 0) AS open_info, coalesce(oa.low, 0) AS open_low,
	       coalesce(oa.medium, 0) AS open_medium, coalesce(oa.high, 0) AS open_high,
	       coalesce(oa.critical, 0) AS open_critical,
	       coalesce(oa.critical_in_game, 0) AS open_critical_in_game, oa.last_alert,
	       coalesce(oi.incidents, 0) AS open_incidents, coalesce(oi.verdicts, 0) AS open_verdicts
	FROM rdmaguard.seat_state s
	CROSS JOIN cfg
	LEFT JOIN oa ON oa.seat = s.seat
	LEFT JOIN oi ON oi.seat = s.seat)
SELECT v.seat, substring(v.seat FROM '^([A-Za-z]+)') AS row_label,
       -- (a label is the seat's to write: a number past an integer's is none)
       CASE WHEN v.seat ~ '(^|[^0-9])0*[0-9]{1,9}$'
	    THEN substring(v.seat FROM '([0-9]+)$')::integer END AS seat_number,
       v.host_name, v.host_id, v.host_ips, v.agent_version, v.fingerprint,
       v.last_heartbeat, v.at - v.last_heartbeat AS since_heartbeat, v.silent,
       v.last_notice = 'agent_stop' AS stopped,
       v.weak_reasons <> '{}' AS weak, v.weak_reasons, v.weak_since,
       v.game_running, v.game,
       v.open_info, v.open_low, v.open_medium, v.open_high, v.open_critical, v.last_alert,
       v.open_incidents, v.open_verdicts,
       CASE WHEN v.open_verdicts > 0 OR v.open_critical_in_game > 0
		 OR (v.open_critical > 0 AND v.game_running) THEN 'incident'
	    WHEN v.silent THEN 'silent'
	    WHEN v.weak_reasons <> '{}' THEN 'weak'
	    WHEN v.open_info + v.open_low + v.open_medium + v.open_high + v.open_critical > 0
		 OR v.open_incidents > 0 THEN 'suspicious'
	    ELSE 'ok' END AS state
FROM v;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA rdmaguard FROM PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA rdmaguard TO rdmaguard_viewer;
GRANT EXECUTE ON FUNCTION setting(text), silent_seats(interval, timestamptz),
	peer_verdict(text, text, text, inet, text), peer_seat(inet, timestamptz),
	timeline(text, timestamptz, timestamptz), severity_rank(text), posture_reason(text),
	open_alerts() TO rdmaguard_viewer;
RESET ROLE;
