-- SPDX-License-Identifier: GPL-2.0-or-later
-- rdmaguard's central store on PostgreSQL 15: its roles, its tables (time-partitioned evidence,
-- per-seat state kept current as messages arrive) and rdmaguard.ingest(), the one call rsyslog's
-- ompgsql makes per message (fleet/rsyslog/rdmaguard-central.conf). Partitions and retention are
-- retention.sql's, the answers (and the console's views) views.sql's. docs/fleet.md explains
-- each part. As a superuser (or a role that may create roles), in a UTF8 database:
--
--   psql -v ON_ERROR_STOP=1 -d rdmaguard -f schema.sql -f retention.sql -f views.sql
--
-- Roles (NOLOGIN groups; give login roles membership, docs/fleet.md#roles):
--   rdmaguard_owner     owns every object; nobody logs in as it
--   rdmaguard_ingest    EXECUTE on ingest() and nothing else: it cannot read, UPDATE or DELETE
--   rdmaguard_maintain  EXECUTE on maintain(): partitions ahead, retention by dropping them
--   rdmaguard_viewer    SELECT on every table and view (the console's viewers)
--   rdmaguard_referee   a viewer that may also INSERT review notes (never UPDATE or DELETE them;
--                       the database records who and when)
--   rdmaguard_organiser a viewer that enters match windows and their hold
--
-- Field names are the agent's ECS names (docs/seat.md): host.name, host.id, host.ip[], host.mac[],
-- agent.version, labels.seat, destination.ip, source.ip, related.ip[], and what ECS lacks under
-- rdmaguard. (rdmaguard.schema_version 2): rdmaguard.severity, rdmaguard.rdma.peer.address/gid,
-- rdmaguard.hw.fingerprint, rdmaguard.pci.dsn[], rdmaguard.game.name/running,
-- rdmaguard.agent.proctree.games_running, rdmaguard.incident.* (incident records); the
-- first layout's top-level names (severity, rdma.*, hw.*, pci.*, game.*, agent.*) are read too:
-- rdmaguard.ingest() is the one place that knows where each key field is.

SET client_min_messages = warning;

DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['rdmaguard_owner', 'rdmaguard_ingest', 'rdmaguard_maintain',
				 'rdmaguard_viewer', 'rdmaguard_referee', 'rdmaguard_organiser'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I NOLOGIN', r);
		END IF;
	END LOOP;
END
$$;
GRANT rdmaguard_viewer TO rdmaguard_referee, rdmaguard_organiser;
-- The store's queries are short and indexed; the JIT compiler, which the cost of a view over
-- every partition triggers, spent 30 s compiling seat_overview at 10,000 seats to save nothing.
DO $$
BEGIN
	EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
END
$$;

CREATE SCHEMA IF NOT EXISTS rdmaguard AUTHORIZATION rdmaguard_owner;
REVOKE ALL ON SCHEMA rdmaguard FROM PUBLIC;
GRANT USAGE ON SCHEMA rdmaguard TO rdmaguard_ingest, rdmaguard_maintain, rdmaguard_viewer;
SET ROLE rdmaguard_owner;
SET search_path = rdmaguard, pg_catalog;
-- Functions are nobody's to call unless granted (PostgreSQL grants EXECUTE to PUBLIC).
ALTER DEFAULT PRIVILEGES FOR ROLE rdmaguard_owner REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- Settings the views read (views.sql, docs/fleet.md#settings): how long without a heartbeat
-- makes a seat silent, how far back an alert counts as open (until a referee's note on its seat
-- or its incident), the largest share of the reporting seats a hardware fingerprint may have and
-- still be rare.
CREATE TABLE IF NOT EXISTS settings (
	name text PRIMARY KEY,
	value text NOT NULL
);
INSERT INTO settings VALUES ('silent_after', '3 minutes'), ('open_window', '2 hours'),
			    ('fingerprint_rare_share', '0.05')
ON CONFLICT (name) DO NOTHING;

---------------------------------------------------------------------------------------------------
-- Evidence: append-only, partitioned by day of received_at (the collector's clock, which a seat
-- cannot set), one partition a day (alerts_p20261207 ...) plus a default one that catches what
-- arrives before its day's partition exists (maintain() moves it out). retention.sql.

-- Every alert once: event.id is checked against event_ids first (a partitioned table cannot
-- hold a unique key without its partition key, and a retry arrives at another received_at).
CREATE TABLE IF NOT EXISTS alerts (
	received_at timestamptz NOT NULL,  -- the collector's clock
	ts timestamptz NOT NULL,           -- the alert's @timestamp (the seat's clock)
	event_id uuid NOT NULL,
	seat text NOT NULL,                -- labels.seat, else host.name, else host.hostname
	host_id text,                      -- host.id (machine-id)
	rule_id text NOT NULL,
	severity text NOT NULL,
	severity_rank smallint NOT NULL,   -- info 0 .. critical 4
	incident_id text,                  -- rdmaguard.incident.id: the incident it belongs to
	game text,                         -- game.name, when game.running
	peer_ips inet[] NOT NULL DEFAULT '{}', -- destination.ip, related.ip[], rdma.peer.*, less
					       -- host.ip[] and source.ip (this seat's own)
	process_name text,
	message text,
	sender_ip inet,                    -- where the collector received it from (fromhost-ip)
	doc jsonb NOT NULL                 -- the alert, whole
) PARTITION BY RANGE (received_at);
-- seat_alerts: a seat's latest
CREATE INDEX IF NOT EXISTS alerts_seat_received ON alerts (seat, received_at);
-- seat_overview's open counts: the open window of every seat, from the index alone where the
-- pages are all-visible (an alert's row is 1.6 KB with its document)
DROP INDEX IF EXISTS alerts_received;
CREATE INDEX IF NOT EXISTS alerts_open ON alerts (received_at)
	INCLUDE (seat, severity_rank, incident_id, game);
-- timeline(), match_timeline: a seat's alerts by its own clock
CREATE INDEX IF NOT EXISTS alerts_seat_ts ON alerts (seat, ts);
-- rdma_peers: the alerts that name a peer, by time
CREATE INDEX IF NOT EXISTS alerts_peers_ts ON alerts (ts) WHERE peer_ips <> '{}';
-- incident_timeline: an incident's alerts
CREATE INDEX IF NOT EXISTS alerts_incident ON alerts (incident_id) WHERE incident_id IS NOT NULL;
-- one alert by its id (the console's link, rdma_peers inside timeline)
CREATE INDEX IF NOT EXISTS alerts_event_id ON alerts (event_id);
CREATE TABLE IF NOT EXISTS alerts_default PARTITION OF alerts DEFAULT;

-- Each RDMA peer of an alert (its peer_ips), narrow: rdma_peers reads it, one small table
-- instead of every day's partition of alerts (whose planning alone cost more than the answer).
-- Kept by a trigger on alerts, whoever writes them; pruned by maintain() once the alert's
-- partition is gone. A row moved out of the default partition is inserted again: dropped.
CREATE TABLE IF NOT EXISTS alert_peers (
	received_at timestamptz NOT NULL,
	ts timestamptz NOT NULL,
	event_id uuid NOT NULL,
	seat text NOT NULL,
	rule_id text NOT NULL,
	rule_name text,                    -- rule.name
	severity text NOT NULL,
	peer inet NOT NULL,
	PRIMARY KEY (event_id, peer)
);
CREATE INDEX IF NOT EXISTS alert_peers_received ON alert_peers (received_at);
CREATE INDEX IF NOT EXISTS alert_peers_ts ON alert_peers (ts);

CREATE OR REPLACE FUNCTION alert_peers_follow() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
BEGIN
	INSERT INTO rdmaguard.alert_peers
	SELECT NEW.received_at, NEW.ts, NEW.event_id, NEW.seat, NEW.rule_id,
	       NEW.doc #>> '{rule,name}', NEW.severity, p
	FROM unnest(NEW.peer_ips) p
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS alert_peers_follow ON alerts;
CREATE TRIGGER alert_peers_follow AFTER INSERT ON alerts
	FOR EACH ROW WHEN (NEW.peer_ips <> '{}') EXECUTE FUNCTION alert_peers_follow();
-- A store made before this table: filled once from the alerts.
INSERT INTO alert_peers
SELECT a.received_at, a.ts, a.event_id, a.seat, a.rule_id, a.doc #>> '{rule,name}', a.severity, p
FROM alerts a CROSS JOIN LATERAL unnest(a.peer_ips) p
WHERE a.peer_ips <> '{}' AND NOT EXISTS (SELECT 1 FROM alert_peers)
ON CONFLICT DO NOTHING;

-- The ids of the alerts and incident records stored, for dropping repeats (syslog+tls:// is at
-- least once; rsyslog retries a batch after a lost connection). Pruned by maintain().
CREATE TABLE IF NOT EXISTS event_ids (
	event_id uuid PRIMARY KEY,
	received_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS event_ids_received ON event_ids USING brin (received_at);

-- The agent's notices: agent_heartbeat, agent_start, agent_stop. A heartbeat is a small row (its
-- document only when the seat's identity changed: then seat_changes has it too); the others keep
-- their document. Kept for a shorter time than alerts (maintain()'s heartbeats_keep): at 10,000
-- seats a heartbeat every 30 s is 28.8 million rows a day.
CREATE TABLE IF NOT EXISTS agent_events (
	received_at timestamptz NOT NULL,
	ts timestamptz,
	seat text NOT NULL,
	action text NOT NULL,              -- event.action
	event_id uuid,
	sender_ip inet,
	changed boolean NOT NULL,          -- identity (addresses, fingerprint, DSNs, version) changed
	doc jsonb                          -- the notice; NULL for a heartbeat that changed nothing
) PARTITION BY RANGE (received_at);
CREATE INDEX IF NOT EXISTS agent_events_seat ON agent_events (seat, received_at);
CREATE TABLE IF NOT EXISTS agent_events_default PARTITION OF agent_events DEFAULT;

-- The agent's incident records (opened, updated, closed): one row per record.
CREATE TABLE IF NOT EXISTS incident_events (
	received_at timestamptz NOT NULL,
	ts timestamptz NOT NULL,
	event_id uuid NOT NULL,
	seat text NOT NULL,
	incident_id text NOT NULL,
	state text NOT NULL,               -- opened | updated | closed
	stage text,                        -- the furthest stage reached
	severity text NOT NULL,
	severity_rank smallint NOT NULL,
	verdict boolean NOT NULL,          -- a verdict-level incident (a cheat)
	summary text,
	sender_ip inet,
	doc jsonb NOT NULL
) PARTITION BY RANGE (received_at);
CREATE INDEX IF NOT EXISTS incident_events_incident ON incident_events (incident_id, received_at);
CREATE TABLE IF NOT EXISTS incident_events_default PARTITION OF incident_events DEFAULT;

-- What could not be read (not JSON, no event.id): kept, never lost, never a failed statement
-- that would make rsyslog retry the message for ever.
CREATE TABLE IF NOT EXISTS rejects (
	received_at timestamptz NOT NULL,
	hostname text,
	sender_ip inet,
	reason text NOT NULL,
	msg text NOT NULL
) PARTITION BY RANGE (received_at);
CREATE INDEX IF NOT EXISTS rejects_received ON rejects (received_at);
CREATE TABLE IF NOT EXISTS rejects_default PARTITION OF rejects DEFAULT;

---------------------------------------------------------------------------------------------------
-- State kept current by ingest(): one row per seat, per incident, per address held.

-- Each seat as its latest messages describe it. The console's room reads this (seat_overview),
-- never a sort over heartbeats. Updated in place (fillfactor: HOT updates).
CREATE TABLE IF NOT EXISTS seat_state (
	seat text PRIMARY KEY,
	host_name text,
	host_id text,
	host_ips inet[] NOT NULL DEFAULT '{}',
	host_macs text[] NOT NULL DEFAULT '{}',
	agent_version text,
	policy_sha256 text,                -- rdmaguard.policy.sha256
	fingerprint text,                  -- hw.fingerprint
	pci_dsns text[] NOT NULL DEFAULT '{}', -- pci.dsn[]
	ident jsonb,                       -- the identity fields of the last notice, as sent
	first_seen timestamptz NOT NULL,   -- collector clock, the first message
	last_seen timestamptz NOT NULL,    -- the last notice (alerts: seat_overview.last_alert)
	last_heartbeat timestamptz,        -- collector clock: silence is measured on it
	last_heartbeat_ts timestamptz,     -- the seat's own clock
	last_notice text,                  -- agent_start | agent_heartbeat | agent_stop
	last_notice_at timestamptz,
	games_running integer,             -- agent.proctree.games_running of the last heartbeat
	game text,                         -- game.name of the latest alert during a game
	game_at timestamptz,
	weak_reasons text[] NOT NULL DEFAULT '{}', -- iommu, hardware: posture alerts since start
	weak_since timestamptz,
	identity_changed_at timestamptz,
	heartbeats bigint NOT NULL DEFAULT 0,
	sender_ip inet
) WITH (fillfactor = 50);

-- Each PCI serial number a seat reports (seat_state.pci_dsns, as many times as it lists it):
-- dsn_shared reads it by dsn, never unnesting every seat's array. Kept by a trigger on
-- seat_state, whoever writes its pci_dsns; a heartbeat's UPDATE does not name the column and
-- fires nothing.
CREATE TABLE IF NOT EXISTS seat_dsns (
	dsn text,                          -- NULL: a null in the JSON array
	seat text NOT NULL,
	n integer NOT NULL                 -- how many times the seat's pci_dsns lists it
);
CREATE INDEX IF NOT EXISTS seat_dsns_dsn ON seat_dsns (dsn, seat) INCLUDE (n);
CREATE INDEX IF NOT EXISTS seat_dsns_seat ON seat_dsns (seat);

CREATE OR REPLACE FUNCTION seat_dsns_follow() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		DELETE FROM rdmaguard.seat_dsns d WHERE d.seat = OLD.seat;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.pci_dsns <> '{}' THEN
		INSERT INTO rdmaguard.seat_dsns
		SELECT x, NEW.seat, count(*) FROM unnest(NEW.pci_dsns) x GROUP BY x;
	END IF;
	RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS seat_dsns_insert ON seat_state;
CREATE TRIGGER seat_dsns_insert AFTER INSERT ON seat_state
	FOR EACH ROW WHEN (NEW.pci_dsns <> '{}') EXECUTE FUNCTION seat_dsns_follow();
DROP TRIGGER IF EXISTS seat_dsns_update ON seat_state;
CREATE TRIGGER seat_dsns_update AFTER UPDATE OF pci_dsns, seat ON seat_state
	FOR EACH ROW WHEN (OLD.pci_dsns IS DISTINCT FROM NEW.pci_dsns OR OLD.seat <> NEW.seat)
	EXECUTE FUNCTION seat_dsns_follow();
DROP TRIGGER IF EXISTS seat_dsns_delete ON seat_state;
CREATE TRIGGER seat_dsns_delete AFTER DELETE ON seat_state
	FOR EACH ROW EXECUTE FUNCTION seat_dsns_follow();
-- A store made before this table: filled once from the seats.
INSERT INTO seat_dsns
SELECT x, s.seat, count(*) FROM seat_state s CROSS JOIN LATERAL unnest(s.pci_dsns) x
WHERE NOT EXISTS (SELECT 1 FROM seat_dsns)
GROUP BY x, s.seat;

-- Which seat held which address when (from host.ip[] of its notices): rdma_peers asks it.
CREATE TABLE IF NOT EXISTS seat_addresses (
	ip inet NOT NULL,
	seat text NOT NULL,
	since timestamptz NOT NULL,
	until timestamptz                  -- NULL: held now
);
CREATE INDEX IF NOT EXISTS seat_addresses_ip ON seat_addresses (ip, since);
CREATE INDEX IF NOT EXISTS seat_addresses_held ON seat_addresses (seat) WHERE until IS NULL;

-- Every notice that changed a seat's identity, whole: the hardware and address history.
CREATE TABLE IF NOT EXISTS seat_changes (
	received_at timestamptz NOT NULL,
	seat text NOT NULL,
	changed text[] NOT NULL,           -- host_ips, fingerprint, pci_dsns, agent_version, seen
	host_ips inet[] NOT NULL,
	fingerprint text,
	pci_dsns text[] NOT NULL,
	agent_version text,
	event_id uuid,
	doc jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS seat_changes_seat ON seat_changes (seat, received_at);

-- Each incident as its latest record describes it.
CREATE TABLE IF NOT EXISTS incidents (
	incident_id text PRIMARY KEY,
	seat text NOT NULL,
	state text NOT NULL,
	stage text,
	severity text NOT NULL,
	severity_rank smallint NOT NULL,   -- the highest any record gave
	verdict boolean NOT NULL,          -- any record a verdict
	summary text,
	opened_at timestamptz NOT NULL,    -- collector clock, first record
	updated_at timestamptz NOT NULL,
	closed_at timestamptz,
	last_ts timestamptz NOT NULL,      -- the seat's clock, latest record
	records integer NOT NULL DEFAULT 1,
	doc jsonb NOT NULL                 -- the latest record
) WITH (fillfactor = 70);
CREATE INDEX IF NOT EXISTS incidents_seat ON incidents (seat, updated_at);
-- seat_overview: the open incidents, and those closed within the open window
CREATE INDEX IF NOT EXISTS incidents_open ON incidents (seat) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS incidents_closed ON incidents (closed_at);

---------------------------------------------------------------------------------------------------
-- Written by people.

-- A referee's note on an incident (reviewed) or on a seat as a whole (incident_id NULL: its
-- alerts so far are reviewed). Who and when are the database's: the trigger sets reviewer to
-- current_user and recorded_at to now() whatever the INSERT said; nothing is updated or deleted
-- (the trigger refuses, and no role is granted either). account: the console's user on whose
-- behalf its database role wrote.
CREATE TABLE IF NOT EXISTS review_notes (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	incident_id text,
	seat text NOT NULL,
	note text NOT NULL CHECK (length(note) BETWEEN 1 AND 4000),
	account text CHECK (length(account) <= 200),
	reviewer text NOT NULL DEFAULT current_user,
	recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS review_notes_incident ON review_notes (incident_id)
	WHERE incident_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS review_notes_seat ON review_notes (seat, recorded_at);

CREATE OR REPLACE FUNCTION review_notes_stamp() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		RAISE EXCEPTION 'review notes are never changed or deleted';
	END IF;
	NEW.reviewer := current_user;
	NEW.recorded_at := now();
	IF NEW.incident_id IS NOT NULL THEN
		SELECT i.seat INTO NEW.seat FROM rdmaguard.incidents i
		WHERE i.incident_id = NEW.incident_id;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'no incident %', NEW.incident_id;
		END IF;
	END IF;
	RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS review_notes_stamp ON review_notes;
CREATE TRIGGER review_notes_stamp BEFORE INSERT OR UPDATE OR DELETE ON review_notes
	FOR EACH ROW EXECUTE FUNCTION review_notes_stamp();
DROP TRIGGER IF EXISTS review_notes_no_truncate ON review_notes;
CREATE TRIGGER review_notes_no_truncate BEFORE TRUNCATE ON review_notes
	FOR EACH STATEMENT EXECUTE FUNCTION review_notes_stamp();

-- Match windows, entered by the organiser: which seats play when. hold keeps the partitions
-- holding their alerts from retention (a dispute).
CREATE TABLE IF NOT EXISTS matches (
	match_id text PRIMARY KEY,
	seats text[] NOT NULL,
	starts timestamptz NOT NULL,
	ends timestamptz NOT NULL,
	hold boolean NOT NULL DEFAULT false,
	CHECK (ends > starts)
);

---------------------------------------------------------------------------------------------------
-- ingest() and the field readers it uses.

CREATE OR REPLACE FUNCTION severity_rank(s text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE s WHEN 'info' THEN 0 WHEN 'low' THEN 1 WHEN 'medium' THEN 2
		      WHEN 'high' THEN 3 WHEN 'critical' THEN 4 ELSE 2 END::smallint
$$;

-- The weakness a posture alert shows (seat_state.weak_reasons): the IOMMU off or weakened,
-- hardware nobody explained (no driver, DMA-card tells, untranslated DMA, a function added at
-- runtime, a difference from the seat's baseline). NULL for the other rules.
CREATE OR REPLACE FUNCTION posture_reason(rule_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN rule_id = 'DMA-004' THEN 'iommu'
		    WHEN rule_id IN ('DMA-001', 'DMA-002', 'DMA-003', 'DMA-005', 'DMA-008')
		    THEN 'hardware' END
$$;

-- The addresses in a JSON array (or a single string) that parse as inet; others are skipped.
CREATE OR REPLACE FUNCTION json_inets(j jsonb) RETURNS inet[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	out inet[] := '{}';
	e text;
BEGIN
	IF j IS NULL THEN
		RETURN out;
	END IF;
	FOR e IN SELECT x FROM jsonb_array_elements_text(
			CASE jsonb_typeof(j) WHEN 'array' THEN j ELSE jsonb_build_array(j) END) x LOOP
		-- A RoCE v2 GID of an IPv4 peer is an IPv4-mapped IPv6 address: its IPv4 form.
		IF e ILIKE '::ffff:%.%' THEN
			e := substr(e, 8);
		END IF;
		-- An IPv4 address (and prefix) is cast as is: the cast cannot fail. Only what
		-- else looks like an address is tried in a subtransaction (BEGIN ... EXCEPTION),
		-- which is dear: an alert names several addresses.
		IF e ~ '^(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}'
		       '(/([0-9]|[12][0-9]|3[0-2]))?$' THEN
			out := out || e::inet;
		ELSIF e ~ '^[0-9A-Fa-f:.]{2,45}(/[0-9]{1,3})?$' THEN
			BEGIN
				out := out || e::inet;
			EXCEPTION WHEN others THEN
				NULL;
			END;
		END IF;
	END LOOP;
	RETURN out;
END
$$;

-- The strings of a JSON array (or a single string), sorted. PL/pgSQL: its query is planned
-- once a session, where an SQL function's would be planned at every call.
CREATE OR REPLACE FUNCTION json_texts(j jsonb) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN ARRAY(SELECT x FROM jsonb_array_elements_text(
		CASE jsonb_typeof(j) WHEN 'array' THEN j WHEN 'string' THEN jsonb_build_array(j)
		     ELSE '[]'::jsonb END) x ORDER BY x);
END
$$;

-- An alert (event.kind alert): once, by event.id; its seat's state follows.
CREATE OR REPLACE FUNCTION ingest_alert(d jsonb, id uuid, ts timestamptz, seat text,
					rcv timestamptz, sender_ip inet)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	ips inet[] := '{}';
	own inet[];
	rule text := coalesce(d #>> '{rule,id}', '?');
	weak text := rdmaguard.posture_reason(rule);
	game text;
BEGIN
	INSERT INTO rdmaguard.event_ids VALUES (id, rcv) ON CONFLICT DO NOTHING;
	IF NOT FOUND THEN
		RETURN; -- a repeat
	END IF;
	IF d ? 'destination' OR d ? 'related' OR d ? 'rdma' OR d #> '{rdmaguard,rdma}' IS NOT NULL
	THEN
		ips := rdmaguard.json_inets(d #> '{destination,ip}') ||
		       rdmaguard.json_inets(d #> '{related,ip}') ||
		       rdmaguard.json_inets(coalesce(d #> '{rdmaguard,rdma,peer,address}',
						     d #> '{rdma,peer,address}')) ||
		       rdmaguard.json_inets(coalesce(d #> '{rdmaguard,rdma,peer,gid}',
						     d #> '{rdma,peer,gid}'));
		-- The seat's own addresses are no peers (related.ip lists both ends).
		IF ips <> '{}' THEN
			own := rdmaguard.json_inets(d #> '{host,ip}') ||
			       rdmaguard.json_inets(d #> '{source,ip}');
			ips := ARRAY(SELECT DISTINCT x FROM unnest(ips) x WHERE NOT x = ANY (own)
				     ORDER BY x);
		END IF;
	END IF;
	IF coalesce(d #>> '{rdmaguard,game,running}', d #>> '{game,running}') = 'true' THEN
		game := coalesce(d #>> '{rdmaguard,game,name}', d #>> '{game,name}', '?');
	END IF;
	INSERT INTO rdmaguard.alerts (received_at, ts, event_id, seat, host_id, rule_id, severity,
				      severity_rank, incident_id, game, peer_ips, process_name,
				      message, sender_ip, doc)
	VALUES (rcv, ts, id, seat, d #>> '{host,id}', rule,
		coalesce(d #>> '{rdmaguard,severity}', d ->> 'severity', 'medium'),
		rdmaguard.severity_rank(coalesce(d #>> '{rdmaguard,severity}', d ->> 'severity')),
		coalesce(d #>> '{rdmaguard,incident,id}', d #>> '{incident,id}'), game, ips,
		d #>> '{process,name}', d ->> 'message', sender_ip, d);
	-- The seat's row: made if new; otherwise touched only when the alert changes its posture
	-- or its game (at most once a minute), so that alerts take no row lock as a rule (two
	-- writers' transactions would wait on each other, or deadlock, over a busy seat).
	INSERT INTO rdmaguard.seat_state (seat, host_id, first_seen, last_seen, game, game_at,
					  weak_reasons, weak_since, sender_ip)
	VALUES (seat, d #>> '{host,id}', rcv, rcv, game, CASE WHEN game IS NOT NULL THEN rcv END,
		CASE WHEN weak IS NULL THEN '{}' ELSE ARRAY[weak] END,
		CASE WHEN weak IS NOT NULL THEN rcv END, sender_ip)
	ON CONFLICT ON CONSTRAINT seat_state_pkey DO NOTHING;
	IF NOT FOUND AND (weak IS NOT NULL OR game IS NOT NULL) THEN
		UPDATE rdmaguard.seat_state s SET
			game = coalesce(game, s.game),
			game_at = CASE WHEN game IS NOT NULL THEN rcv ELSE s.game_at END,
			weak_reasons = CASE WHEN weak IS NULL OR weak = ANY (s.weak_reasons)
					    THEN s.weak_reasons ELSE s.weak_reasons || weak END,
			weak_since = CASE WHEN weak IS NULL OR s.weak_since IS NOT NULL THEN s.weak_since
					  ELSE rcv END
		WHERE s.seat = seat
		  AND ((weak IS NOT NULL AND NOT weak = ANY (s.weak_reasons))
		       OR (game IS NOT NULL AND (s.game IS DISTINCT FROM game OR s.game_at IS NULL
						 OR s.game_at < rcv - interval '1 minute')));
	END IF;
	PERFORM pg_notify('rdmaguard_seats', seat);
END
$$;

-- A notice (agent_heartbeat, agent_start, agent_stop, or another event that is not an alert):
-- the seat's state, its addresses and its identity history follow. Not deduplicated: a repeated
-- notice changes nothing but a row. A heartbeat whose identity fields are those of the seat's
-- last notice (seat_state.ident, compared as JSON) costs one UPDATE and one INSERT.
CREATE OR REPLACE FUNCTION ingest_notice(d jsonb, id uuid, ts timestamptz, seat text,
					 rcv timestamptz, sender_ip inet)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	action text := coalesce(d #>> '{event,action}', '?');
	hb boolean := action = 'agent_heartbeat';
	fpj jsonb := coalesce(d #> '{rdmaguard,hw,fingerprint}', d #> '{hw,fingerprint}',
			      d #> '{host,hardware,fingerprint}');
	dsnj jsonb := coalesce(d #> '{rdmaguard,pci,dsn}', d #> '{pci,dsn}',
			       d #> '{host,hardware,pci_dsn}');
	gr text := coalesce(d #>> '{rdmaguard,agent,proctree,games_running}',
			    d #>> '{agent,proctree,games_running}');
	ident jsonb := jsonb_build_array(d #> '{host,ip}', fpj, dsnj, d #> '{agent,version}',
					 d #> '{host,mac}', d #> '{host,name}', d #> '{host,id}',
					 d #> '{rdmaguard,policy,sha256}');
	games integer;
	ips inet[];
	fp text;
	dsns text[];
	version text := d #>> '{agent,version}';
	old rdmaguard.seat_state;
	what text[] := '{}';
BEGIN
	IF gr ~ '^[0-9]{1,9}$' THEN
		games := gr::integer;
	END IF;
	IF hb THEN
		UPDATE rdmaguard.seat_state s SET last_seen = greatest(s.last_seen, rcv),
			last_heartbeat = rcv, last_heartbeat_ts = ts, last_notice = action,
			last_notice_at = rcv, games_running = coalesce(games, s.games_running),
			heartbeats = s.heartbeats + 1, sender_ip = sender_ip
		WHERE s.seat = seat AND s.ident = ident;
		IF FOUND THEN
			INSERT INTO rdmaguard.agent_events (received_at, ts, seat, action, event_id,
							    sender_ip, changed, doc)
			VALUES (rcv, ts, seat, action, id, sender_ip, false,
				NULL);
			RETURN;
		END IF;
	ELSIF action NOT IN ('agent_start', 'agent_stop') THEN
		-- Not one of the notices that describe the seat: kept, the identity left alone.
		INSERT INTO rdmaguard.agent_events (received_at, ts, seat, action, event_id,
						    sender_ip, changed, doc)
		VALUES (rcv, ts, seat, action, id, sender_ip, false, d);
		INSERT INTO rdmaguard.seat_state AS s (seat, first_seen, last_seen, sender_ip)
		VALUES (seat, rcv, rcv, sender_ip)
		ON CONFLICT ON CONSTRAINT seat_state_pkey DO UPDATE SET
			last_seen = greatest(s.last_seen, rcv);
		RETURN;
	END IF;
	ips := rdmaguard.json_inets(d #> '{host,ip}');
	fp := fpj #>> '{}';
	dsns := rdmaguard.json_texts(dsnj);
	SELECT * INTO old FROM rdmaguard.seat_state s WHERE s.seat = ingest_notice.seat FOR UPDATE;
	IF NOT FOUND OR old.last_notice IS NULL THEN
		what := ARRAY['seen'];
	END IF;
	IF old.host_ips IS DISTINCT FROM ips THEN
		what := what || 'host_ips'::text;
	END IF;
	IF old.fingerprint IS DISTINCT FROM fp THEN
		what := what || 'fingerprint'::text;
	END IF;
	IF old.pci_dsns IS DISTINCT FROM dsns THEN
		what := what || 'pci_dsns'::text;
	END IF;
	IF old.agent_version IS DISTINCT FROM version THEN
		what := what || 'agent_version'::text;
	END IF;
	INSERT INTO rdmaguard.agent_events (received_at, ts, seat, action, event_id, sender_ip,
					    changed, doc)
	VALUES (rcv, ts, seat, action, id, sender_ip, what <> '{}',
		CASE WHEN NOT hb OR what <> '{}' THEN d END);
	IF what <> '{}' THEN
		INSERT INTO rdmaguard.seat_changes VALUES (rcv, seat, what, ips, fp, dsns, version, id,
							   d);
	END IF;
	IF old.host_ips IS DISTINCT FROM ips THEN
		UPDATE rdmaguard.seat_addresses a SET until = rcv
		WHERE a.seat = ingest_notice.seat AND a.until IS NULL AND NOT a.ip = ANY (ips);
		INSERT INTO rdmaguard.seat_addresses
		SELECT x, seat, rcv, NULL FROM unnest(ips) x
		WHERE NOT x = ANY (coalesce(old.host_ips, '{}'));
	END IF;
	INSERT INTO rdmaguard.seat_state AS s (seat, host_name, host_id, host_ips, host_macs,
		agent_version, policy_sha256, fingerprint, pci_dsns, ident, first_seen, last_seen,
		last_heartbeat, last_heartbeat_ts, last_notice, last_notice_at, games_running,
		identity_changed_at, heartbeats, sender_ip)
	VALUES (seat, coalesce(d #>> '{host,name}', d #>> '{host,hostname}'), d #>> '{host,id}', ips,
		rdmaguard.json_texts(d #> '{host,mac}'), version, d #>> '{rdmaguard,policy,sha256}',
		fp, dsns, ident, rcv, rcv, CASE WHEN hb THEN rcv END, CASE WHEN hb THEN ts END,
		action, rcv, games, CASE WHEN what <> '{}' THEN rcv END, CASE WHEN hb THEN 1 ELSE 0 END,
		sender_ip)
	ON CONFLICT ON CONSTRAINT seat_state_pkey DO UPDATE SET
		host_name = excluded.host_name, host_id = excluded.host_id,
		host_ips = excluded.host_ips, host_macs = excluded.host_macs,
		agent_version = excluded.agent_version, policy_sha256 = excluded.policy_sha256,
		fingerprint = excluded.fingerprint, pci_dsns = excluded.pci_dsns,
		ident = excluded.ident,
		last_seen = greatest(s.last_seen, rcv),
		last_heartbeat = coalesce(excluded.last_heartbeat, s.last_heartbeat),
		last_heartbeat_ts = coalesce(excluded.last_heartbeat_ts, s.last_heartbeat_ts),
		last_notice = excluded.last_notice, last_notice_at = rcv,
		games_running = CASE WHEN action = 'agent_stop' THEN 0
				     ELSE coalesce(excluded.games_running, s.games_running) END,
		identity_changed_at = coalesce(excluded.identity_changed_at, s.identity_changed_at),
		heartbeats = s.heartbeats + excluded.heartbeats,
		sender_ip = excluded.sender_ip,
		-- The agent reports its posture again after a start: what was weak is asked anew.
		weak_reasons = CASE WHEN action = 'agent_start' THEN '{}' ELSE s.weak_reasons END,
		weak_since = CASE WHEN action = 'agent_start' THEN NULL ELSE s.weak_since END;
	IF NOT hb OR what <> '{}' THEN
		PERFORM pg_notify('rdmaguard_seats', seat);
	END IF;
END
$$;

-- An incident record (event.dataset rdmaguard.incident, or event.kind incident): once, by
-- event.id (the record's id); the incident's current row follows the latest record by the
-- seat's clock. The agent's record: event.action incident_opened,
-- incident_updated, incident_closed; rdmaguard.incident.id, .status (open, closed), .stage,
-- .verdict (cheat, suspicious, notice, agent), message (the summary), severity.
CREATE OR REPLACE FUNCTION ingest_incident(d jsonb, id uuid, ts timestamptz, seat text,
					   rcv timestamptz, sender_ip inet)
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	inc jsonb := coalesce(d #> '{rdmaguard,incident}', d -> 'incident');
	iid text := inc ->> 'id';
	state text := lower(coalesce(inc ->> 'state',
				     regexp_replace(d #>> '{event,action}', '^incident_', '')));
	sev text := coalesce(inc ->> 'severity', d #>> '{rdmaguard,severity}', d ->> 'severity',
			     'medium');
	rank smallint := rdmaguard.severity_rank(sev);
	-- the agent's verdicts: cheat, suspicious, notice, agent; only a cheat is a verdict here
	verdict boolean := coalesce(lower(inc ->> 'verdict') IN ('cheat', 'true'), false);
	summary text := coalesce(inc ->> 'summary', d ->> 'message');
	stage text := coalesce(inc ->> 'stage', inc #>> '{stages,-1}');
BEGIN
	INSERT INTO rdmaguard.event_ids VALUES (id, rcv) ON CONFLICT DO NOTHING;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	IF state IS NULL OR state NOT IN ('opened', 'updated', 'closed') THEN
		state := CASE WHEN inc ->> 'status' = 'closed' THEN 'closed' ELSE 'updated' END;
	END IF;
	INSERT INTO rdmaguard.incident_events VALUES (rcv, ts, id, seat, iid, state, stage, sev, rank,
						      verdict, summary, sender_ip, d);
	INSERT INTO rdmaguard.incidents AS i VALUES (iid, seat, state, stage, sev, rank, verdict,
		summary, rcv, rcv, CASE WHEN state = 'closed' THEN rcv END, ts, 1, d)
	ON CONFLICT (incident_id) DO UPDATE SET
		state = CASE WHEN ts >= i.last_ts THEN excluded.state ELSE i.state END,
		stage = CASE WHEN ts >= i.last_ts THEN coalesce(excluded.stage, i.stage)
			     ELSE i.stage END,
		severity = CASE WHEN rank >= i.severity_rank THEN sev ELSE i.severity END,
		severity_rank = greatest(i.severity_rank, rank),
		verdict = i.verdict OR verdict,
		summary = CASE WHEN ts >= i.last_ts THEN coalesce(summary, i.summary)
			       ELSE i.summary END,
		updated_at = rcv,
		closed_at = CASE WHEN ts >= i.last_ts AND state = 'closed' THEN rcv
				 WHEN ts >= i.last_ts THEN NULL ELSE i.closed_at END,
		last_ts = greatest(i.last_ts, ts),
		records = i.records + 1,
		doc = CASE WHEN ts >= i.last_ts THEN d ELSE i.doc END;
	INSERT INTO rdmaguard.seat_state (seat, first_seen, last_seen, sender_ip)
	VALUES (seat, rcv, rcv, sender_ip)
	ON CONFLICT ON CONSTRAINT seat_state_pkey DO NOTHING;
	PERFORM pg_notify('rdmaguard_seats', seat);
END
$$;

-- One message from rsyslog: msg is the RFC 5424 MSG (the agent's JSON; a BOM before it, as
-- the outputs' bom=1 sends, is dropped), hostname the syslog HOSTNAME, sender the address it
-- came from. Never raises: what cannot be read goes to rejects. Everything that can fail (the
-- JSON, the id, the time, the lengths of what is indexed) is read inside the one EXCEPTION
-- block; the writes come after it, so that no message takes a subtransaction's XID (ompgsql's
-- transactions of many messages would overflow the 64 a backend caches and slow every
-- snapshot). SECURITY DEFINER: the ingesting role may call this and nothing else.
CREATE OR REPLACE FUNCTION ingest(msg text, hostname text, sender text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
#variable_conflict use_variable
DECLARE
	rcv timestamptz := statement_timestamp();
	d jsonb;
	id uuid;
	ts timestamptz;
	route text;
	seat text;
	sender_ip inet;
BEGIN
	IF sender ~ '^(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}$'
	THEN
		sender_ip := sender::inet; -- IPv4: no subtransaction
	ELSIF sender ~ '^[0-9A-Fa-f:.]{2,45}$' THEN
		BEGIN
			sender_ip := sender::inet;
		EXCEPTION WHEN others THEN
			sender_ip := NULL;
		END;
	END IF;
	BEGIN
		IF left(msg, 1) = U&'\FEFF' THEN
			msg := substr(msg, 2);
		END IF;
		d := msg::jsonb;
		IF jsonb_typeof(d) <> 'object' OR (d #>> '{event,id}') IS NULL THEN
			RAISE EXCEPTION 'not an rdmaguard event (no event.id)';
		END IF;
		IF d #>> '{event,dataset}' = 'rdmaguard.incident' THEN
			-- an incident record's id is its incident's and its number (INC-...-N): the
			-- ledger keys it by the uuid of its md5, the same for a record sent twice
			id := md5(d #>> '{event,id}')::uuid;
		ELSE
			id := (d #>> '{event,id}')::uuid;
		END IF;
		ts := (d ->> '@timestamp')::timestamptz;
		seat := coalesce(d #>> '{labels,seat}', d #>> '{host,name}', d #>> '{host,hostname}',
				 hostname);
		IF seat IS NULL OR seat = '' OR length(seat) > 200 THEN
			RAISE EXCEPTION 'no seat of at most 200 characters (labels.seat, host.name, '
					'HOSTNAME)';
		END IF;
		route := CASE WHEN d #>> '{event,kind}' = 'alert' THEN 'alert'
			      WHEN d #>> '{event,dataset}' = 'rdmaguard.incident'
				   OR d #>> '{event,kind}' = 'incident' THEN 'incident'
			      ELSE 'notice' END;
		IF route <> 'notice' AND ts IS NULL THEN
			RAISE EXCEPTION 'no @timestamp';
		END IF;
		IF route = 'incident' AND coalesce(length(coalesce(d #>> '{rdmaguard,incident,id}',
								   d #>> '{incident,id}')), 0)
					  NOT BETWEEN 1 AND 200 THEN
			RAISE EXCEPTION 'no rdmaguard.incident.id of at most 200 characters';
		END IF;
		IF route = 'alert' AND length(coalesce(d #>> '{rdmaguard,incident,id}',
							d #>> '{incident,id}')) > 200 THEN
			RAISE EXCEPTION 'rdmaguard.incident.id longer than 200 characters';
		END IF;
	EXCEPTION WHEN others THEN
		INSERT INTO rdmaguard.rejects (received_at, hostname, sender_ip, reason, msg)
		VALUES (rcv, hostname, sender_ip, SQLERRM, msg);
		RETURN;
	END;
	IF route = 'alert' THEN
		PERFORM rdmaguard.ingest_alert(d, id, ts, seat, rcv, sender_ip);
	ELSIF route = 'incident' THEN
		PERFORM rdmaguard.ingest_incident(d, id, ts, seat, rcv, sender_ip);
	ELSE
		PERFORM rdmaguard.ingest_notice(d, id, ts, seat, rcv, sender_ip);
	END IF;
END
$$;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA rdmaguard FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ingest(text, text, text) TO rdmaguard_ingest;
GRANT SELECT ON ALL TABLES IN SCHEMA rdmaguard TO rdmaguard_viewer;
GRANT INSERT (incident_id, seat, note, account) ON review_notes TO rdmaguard_referee;
GRANT INSERT, UPDATE (hold) ON matches TO rdmaguard_organiser;
GRANT EXECUTE ON FUNCTION severity_rank(text), posture_reason(text) TO rdmaguard_viewer;
RESET ROLE;
