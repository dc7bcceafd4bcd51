-- SPDX-License-Identifier: GPL-2.0-or-later
-- The fleet's answers over rdmaguard's central store (schema.sql): silent seats, whose RDMA peer
-- is which seat, cloned PCI serial numbers, hardware that differs from the fleet's, and the alert
-- timeline of a seat or a match for a referee. docs/fleet.md shows each with its output.

SET search_path = rdmaguard, public;

-- Each seat as its latest heartbeat describes it.
CREATE OR REPLACE VIEW seats AS
SELECT DISTINCT ON (seat) seat, received_at AS last_heartbeat, ts AS last_heartbeat_ts,
       host_name, host_id, host_ips, host_macs, agent_version, fingerprint, pci_dsns
FROM rdmaguard.agent_events
WHERE action = 'agent_heartbeat'
ORDER BY seat, received_at DESC, event_id;

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
	FROM rdmaguard.seats s
	WHERE s.last_heartbeat < at - quiet
	ORDER BY s.last_heartbeat, s.seat
$$;

-- Every RDMA peer address of an alert, and which seat it is: the seat whose heartbeat (the one
-- nearest the alert in time: addresses move) listed it in host.ip, else none.
CREATE OR REPLACE VIEW rdma_peers AS
SELECT a.event_id, a.ts, a.seat, a.rule_id, a.severity, p.peer, w.seat AS peer_seat,
       format('seat %s: %s (%s) with RDMA peer %s, which is %s', a.seat, a.rule_id,
	      coalesce(a.doc #>> '{rule,name}', '?'), host(p.peer),
	      CASE WHEN w.seat IS NULL THEN 'not a seat'
		   WHEN w.seat = a.seat THEN 'this seat'
		   ELSE 'seat ' || w.seat END) AS verdict
FROM rdmaguard.alerts a
CROSS JOIN LATERAL unnest(a.peer_ips) AS p(peer)
LEFT JOIN LATERAL (
	SELECT e.seat FROM rdmaguard.agent_events e
	WHERE e.action = 'agent_heartbeat' AND e.host_ips @> ARRAY[p.peer]
	ORDER BY abs(extract(epoch FROM e.received_at - a.received_at)), e.seat
	LIMIT 1) w ON true;

-- One PCI Device Serial Number reported by several seats: one donor card's identity cloned.
CREATE OR REPLACE VIEW dsn_shared AS
SELECT d.dsn, array_agg(s.seat ORDER BY s.seat) AS seats
FROM rdmaguard.seats s
CROSS JOIN LATERAL unnest(s.pci_dsns) AS d(dsn)
GROUP BY d.dsn
HAVING count(DISTINCT s.seat) > 1;

-- Seats whose hardware fingerprint differs from the one a strict majority of reporting seats
-- has (no row when no fingerprint has a majority).
CREATE OR REPLACE VIEW fingerprint_outliers AS
WITH f AS (
	SELECT fingerprint, count(*) AS n FROM rdmaguard.seats
	WHERE fingerprint IS NOT NULL GROUP BY fingerprint),
tot AS (SELECT sum(n)::bigint AS total FROM f),
maj AS (SELECT f.fingerprint, f.n FROM f, tot WHERE f.n * 2 > tot.total)
SELECT s.seat, s.fingerprint, maj.fingerprint AS fleet_fingerprint, maj.n AS fleet_seats,
       tot.total AS seats_reporting
FROM rdmaguard.seats s, maj, tot
WHERE s.fingerprint IS NOT NULL AND s.fingerprint <> maj.fingerprint;

-- A seat's alerts between two instants, oldest first, each with its peers' verdicts: what an
-- organiser hands to a referee. SELECT * FROM rdmaguard.timeline('B-12', '...', '...');
CREATE OR REPLACE FUNCTION timeline(seat text, starts timestamptz, ends timestamptz)
RETURNS TABLE (ts timestamptz, rule_id text, severity text, message text, peers text,
	       event_id uuid)
LANGUAGE sql STABLE AS $$
	SELECT a.ts, a.rule_id, a.severity, a.message,
	       (SELECT string_agg(p.verdict, '; ' ORDER BY p.peer)
		FROM rdmaguard.rdma_peers p WHERE p.event_id = a.event_id),
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
