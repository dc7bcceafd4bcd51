-- SPDX-License-Identifier: GPL-2.0-or-later
-- rdmaguard's central store on PostgreSQL 15: what rsyslog's ompgsql writes (one call of
-- rdmaguard.ingest() per message, fleet/rsyslog/rdmaguard-central.conf), the key fields of every
-- alert and heartbeat in indexed columns beside the whole JSON document (JSONB), retention, and
-- the fleet's answers (fleet/postgresql/views.sql). docs/fleet.md explains each part.
--
--   psql -v ON_ERROR_STOP=1 -d rdmaguard -f schema.sql -f views.sql
--
-- Field names are the agent's ECS names (docs/seat.md): host.name, host.id, host.ip[], host.mac[],
-- host.os.*, agent.version, labels.seat, destination.ip/port, source.ip, related.ip[],
-- rdma.peer.address/gid. The seat's
-- hardware fingerprint digest and its PCI Device Serial Numbers come in heartbeats as
-- rdmaguard.hw.fingerprint and rdmaguard.pci.dsn[] (schema_version 1's hw.fingerprint / pci.dsn[]
-- and host.hardware.fingerprint / host.hardware.pci_dsn[] are read too):
-- rdmaguard.ingest() is the one place that knows where each key field is.

CREATE SCHEMA IF NOT EXISTS rdmaguard;
SET search_path = rdmaguard, public;

-- Every alert once (event.id is unique: a sender's retry after an outage is dropped here).
CREATE TABLE IF NOT EXISTS alerts (
	event_id uuid PRIMARY KEY,
	ts timestamptz NOT NULL,           -- the alert's @timestamp (the seat's clock)
	received_at timestamptz NOT NULL DEFAULT now(), -- the collector's clock
	seat text NOT NULL,                -- labels.seat, else host.name, else host.hostname
	host_id text,                      -- host.id (machine-id)
	rule_id text NOT NULL,
	severity text NOT NULL,
	severity_rank smallint NOT NULL,   -- info 0 .. critical 4
	peer_ips inet[] NOT NULL DEFAULT '{}', -- destination.ip, related.ip[], rdma.peer.*, less
					       -- host.ip[] and source.ip (this seat's own)
	process_name text,
	message text,
	sender_ip inet,                    -- where the collector received it from (fromhost-ip)
	doc jsonb NOT NULL                 -- the alert, whole
);
CREATE INDEX IF NOT EXISTS alerts_seat_ts ON alerts (seat, ts);
CREATE INDEX IF NOT EXISTS alerts_rule_ts ON alerts (rule_id, ts);
CREATE INDEX IF NOT EXISTS alerts_ts ON alerts (ts);
CREATE INDEX IF NOT EXISTS alerts_received ON alerts (received_at);
CREATE INDEX IF NOT EXISTS alerts_peer_ips ON alerts USING gin (peer_ips);
CREATE INDEX IF NOT EXISTS alerts_doc ON alerts USING gin (doc jsonb_path_ops);

-- The agent's notices: agent_heartbeat (event.kind metric), agent_start, agent_stop.
CREATE TABLE IF NOT EXISTS agent_events (
	event_id uuid PRIMARY KEY,
	ts timestamptz NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	seat text NOT NULL,
	action text NOT NULL,              -- event.action
	host_name text,
	host_id text,
	host_ips inet[] NOT NULL DEFAULT '{}', -- host.ip[]
	host_macs text[] NOT NULL DEFAULT '{}',
	agent_version text,
	fingerprint text,                  -- hw.fingerprint: the seat's hardware fingerprint digest
	pci_dsns text[] NOT NULL DEFAULT '{}', -- pci.dsn[]: Device Serial Numbers of its PCI functions
	sender_ip inet,
	doc jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_events_seat ON agent_events (seat, received_at);
CREATE INDEX IF NOT EXISTS agent_events_action ON agent_events (action, received_at);
CREATE INDEX IF NOT EXISTS agent_events_ips ON agent_events USING gin (host_ips);
CREATE INDEX IF NOT EXISTS agent_events_dsns ON agent_events USING gin (pci_dsns);

-- What could not be read (not JSON, no event.id): kept, never lost, never a failed insert that
-- would make rsyslog retry the message forever.
CREATE TABLE IF NOT EXISTS rejects (
	id bigserial PRIMARY KEY,
	received_at timestamptz NOT NULL DEFAULT now(),
	hostname text,
	sender_ip inet,
	reason text NOT NULL,
	msg text NOT NULL
);

-- Match windows, entered by the organiser: which seats play when. hold keeps their alerts from
-- retention (a dispute).
CREATE TABLE IF NOT EXISTS matches (
	match_id text PRIMARY KEY,
	seats text[] NOT NULL,
	starts timestamptz NOT NULL,
	ends timestamptz NOT NULL,
	hold boolean NOT NULL DEFAULT false,
	CHECK (ends > starts)
);

CREATE OR REPLACE FUNCTION severity_rank(s text) RETURNS smallint
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE s WHEN 'info' THEN 0 WHEN 'low' THEN 1 WHEN 'medium' THEN 2
		      WHEN 'high' THEN 3 WHEN 'critical' THEN 4 ELSE 2 END::smallint
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
		BEGIN
			-- A RoCE v2 GID of an IPv4 peer is an IPv4-mapped IPv6 address: its IPv4 form.
			IF e ILIKE '::ffff:%.%' THEN
				e := substr(e, 8);
			END IF;
			out := out || e::inet;
		EXCEPTION WHEN others THEN
			NULL;
		END;
	END LOOP;
	RETURN out;
END
$$;

CREATE OR REPLACE FUNCTION json_texts(j jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM jsonb_array_elements_text(
		CASE jsonb_typeof(j) WHEN 'array' THEN j WHEN 'string' THEN jsonb_build_array(j)
		     ELSE '[]'::jsonb END) x
$$;

-- One message from rsyslog: msg is the RFC 5424 MSG (the agent's JSON), hostname the syslog
-- HOSTNAME, sender the address it came from. Never raises: what cannot be read goes to rejects.
CREATE OR REPLACE FUNCTION ingest(msg text, hostname text, sender text)
RETURNS void LANGUAGE plpgsql SET search_path = rdmaguard, pg_catalog AS $$
DECLARE
	d jsonb;
	kind text;
	seat text;
	sender_ip inet;
	ips inet[];
BEGIN
	BEGIN
		sender_ip := nullif(sender, '')::inet;
	EXCEPTION WHEN others THEN
		sender_ip := NULL;
	END;
	BEGIN
		d := msg::jsonb;
		IF jsonb_typeof(d) <> 'object' OR (d #>> '{event,id}') IS NULL THEN
			RAISE EXCEPTION 'not an rdmaguard event (no event.id)';
		END IF;
		kind := d #>> '{event,kind}';
		seat := coalesce(d #>> '{labels,seat}', d #>> '{host,name}', d #>> '{host,hostname}',
				 hostname);
		IF kind = 'alert' THEN
			ips := json_inets(d #> '{destination,ip}') || json_inets(d #> '{related,ip}') ||
			       json_inets(coalesce(d #> '{rdmaguard,rdma,peer,address}', d #> '{rdma,peer,address}')) ||
			       json_inets(coalesce(d #> '{rdmaguard,rdma,peer,gid}', d #> '{rdma,peer,gid}'));
			-- The seat's own addresses are no peers (related.ip lists both ends).
			ips := ARRAY(SELECT DISTINCT x FROM unnest(ips) x
				     WHERE NOT x = ANY (json_inets(d #> '{host,ip}') ||
							json_inets(d #> '{source,ip}'))
				     ORDER BY x);
			INSERT INTO alerts (event_id, ts, seat, host_id, rule_id, severity, severity_rank,
					    peer_ips, process_name, message, sender_ip, doc)
			VALUES ((d #>> '{event,id}')::uuid, (d ->> '@timestamp')::timestamptz, seat,
				d #>> '{host,id}', coalesce(d #>> '{rule,id}', '?'),
				coalesce(d #>> '{rdmaguard,severity}', d ->> 'severity', 'medium'),
				severity_rank(coalesce(d #>> '{rdmaguard,severity}', d ->> 'severity')),
				ips, d #>> '{process,name}', d ->> 'message', sender_ip, d)
			ON CONFLICT (event_id) DO NOTHING;
		ELSE
			INSERT INTO agent_events (event_id, ts, seat, action, host_name, host_id, host_ips,
						  host_macs, agent_version, fingerprint, pci_dsns,
						  sender_ip, doc)
			VALUES ((d #>> '{event,id}')::uuid, (d ->> '@timestamp')::timestamptz, seat,
				coalesce(d #>> '{event,action}', '?'),
				coalesce(d #>> '{host,name}', d #>> '{host,hostname}'), d #>> '{host,id}',
				json_inets(d #> '{host,ip}'), json_texts(d #> '{host,mac}'),
				d #>> '{agent,version}',
				coalesce(d #>> '{rdmaguard,hw,fingerprint}', d #>> '{hw,fingerprint}',
					 d #>> '{host,hardware,fingerprint}'),
				json_texts(coalesce(d #> '{rdmaguard,pci,dsn}', d #> '{pci,dsn}',
						    d #> '{host,hardware,pci_dsn}')),
				sender_ip, d)
			ON CONFLICT (event_id) DO NOTHING;
		END IF;
	EXCEPTION WHEN others THEN
		INSERT INTO rejects (hostname, sender_ip, reason, msg)
		VALUES (hostname, sender_ip, SQLERRM, msg);
	END;
END
$$;

-- Retention: alerts, notices and rejects received longer ago than keep go, except the alerts
-- of a held match's seats within its window. Run it daily (cron, a systemd timer, pg_cron):
--   SELECT * FROM rdmaguard.purge(interval '90 days');
CREATE OR REPLACE FUNCTION purge(keep interval, at timestamptz DEFAULT now())
RETURNS TABLE (alerts bigint, agent_events bigint, rejects bigint)
LANGUAGE plpgsql SET search_path = rdmaguard, pg_catalog AS $$
DECLARE
	a bigint;
	e bigint;
	r bigint;
BEGIN
	DELETE FROM rdmaguard.alerts x WHERE x.received_at < at - keep
		AND NOT EXISTS (SELECT 1 FROM rdmaguard.matches m
				WHERE m.hold AND x.seat = ANY (m.seats)
				  AND x.ts >= m.starts AND x.ts < m.ends);
	GET DIAGNOSTICS a = ROW_COUNT;
	DELETE FROM rdmaguard.agent_events x WHERE x.received_at < at - keep;
	GET DIAGNOSTICS e = ROW_COUNT;
	DELETE FROM rdmaguard.rejects x WHERE x.received_at < at - keep;
	GET DIAGNOSTICS r = ROW_COUNT;
	RETURN QUERY SELECT a, e, r;
END
$$;
