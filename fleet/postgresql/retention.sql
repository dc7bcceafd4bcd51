-- SPDX-License-Identifier: GPL-2.0-or-later
-- The store's partitions and retention (schema.sql's tables): one partition a day for alerts,
-- agent_events, incident_events and rejects, created ahead by rdmaguard.maintain(), dropped
-- whole once older than the retention (never a DELETE over the evidence), run daily or hourly by
-- the maintenance role:
--
--   SELECT * FROM rdmaguard.maintain();                       -- 90 days, heartbeats 7
--   SELECT * FROM rdmaguard.maintain(keep => '30 days', heartbeats_keep => '2 days');
--
-- docs/fleet.md#retention explains the choices.

SET ROLE rdmaguard_owner;
SET search_path = rdmaguard, pg_catalog;

-- The partitioned tables this file manages, with their retention class.
CREATE OR REPLACE FUNCTION partitioned_tables() RETURNS TABLE (parent text, heartbeats boolean)
LANGUAGE sql IMMUTABLE AS $$
	VALUES ('alerts', false), ('agent_events', true), ('incident_events', false),
	       ('rejects', false)
$$;

-- A day's partition of one table (parent_pYYYYMMDD, [day, day + 1) in UTC). Rows of that day
-- that wait in the default partition are moved into it first (ATTACH refuses otherwise).
-- Returns whether it was created. SECURITY DEFINER, as create_partitions(): whoever calls them
-- (maintain(), an administrator), the partitions are rdmaguard_owner's, which maintain() drops.
CREATE OR REPLACE FUNCTION create_partition(parent text, day date) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
DECLARE
	part text := format('%s_p%s', parent, to_char(day, 'YYYYMMDD'));
	lo timestamptz := (day::text || ' 00:00:00+00')::timestamptz;
	hi timestamptz := ((day + 1)::text || ' 00:00:00+00')::timestamptz;
	waiting boolean;
BEGIN
	IF to_regclass(format('rdmaguard.%I', part)) IS NOT NULL THEN
		RETURN false;
	END IF;
	EXECUTE format('SELECT EXISTS (SELECT 1 FROM rdmaguard.%I WHERE received_at >= $1 '
		       'AND received_at < $2)', parent || '_default') INTO waiting USING lo, hi;
	IF NOT waiting THEN
		EXECUTE format('CREATE TABLE rdmaguard.%I PARTITION OF rdmaguard.%I '
			       'FOR VALUES FROM (%L) TO (%L)', part, parent, lo, hi);
		RETURN true;
	END IF;
	EXECUTE format('CREATE TABLE rdmaguard.%I (LIKE rdmaguard.%I INCLUDING DEFAULTS '
		       'INCLUDING CONSTRAINTS)', part, parent);
	EXECUTE format('WITH m AS (DELETE FROM rdmaguard.%I WHERE received_at >= $1 AND '
		       'received_at < $2 RETURNING *) INSERT INTO rdmaguard.%I SELECT * FROM m',
		       parent || '_default', part) USING lo, hi;
	EXECUTE format('ALTER TABLE rdmaguard.%I ATTACH PARTITION rdmaguard.%I '
		       'FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
	RETURN true;
END
$$;

-- Every managed table's partitions for the days from .. to (inclusive), and for every day that
-- has rows waiting in a default partition. Returns the partitions created.
CREATE OR REPLACE FUNCTION create_partitions(from_day date, to_day date)
RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
DECLARE
	t record;
	day date;
BEGIN
	FOR t IN SELECT * FROM rdmaguard.partitioned_tables() LOOP
		FOR day IN EXECUTE format('SELECT DISTINCT (received_at AT TIME ZONE ''UTC'')::date '
					  'FROM rdmaguard.%I UNION SELECT generate_series($1, $2, '
					  '''1 day'')::date ORDER BY 1', t.parent || '_default')
			   USING from_day, to_day LOOP
			IF rdmaguard.create_partition(t.parent, day) THEN
				RETURN NEXT format('%s_p%s', t.parent, to_char(day, 'YYYYMMDD'));
			END IF;
		END LOOP;
	END LOOP;
END
$$;

-- Retention and partitions ahead. Drops each day partition whose day ended longer than keep
-- before at (heartbeats_keep for agent_events), except an alerts partition holding an alert of
-- a held match (rdmaguard.matches.hold: kept whole until the hold is lifted); prunes the small
-- state tables (event ids, address and identity history, incidents closed or quiet) by the same
-- keep; creates the partitions of today and the next ahead days. Returns one row per action:
-- ('created' | 'dropped' | 'held' | 'pruned', the object, rows). Review notes are never pruned.
CREATE OR REPLACE FUNCTION maintain(keep interval DEFAULT '90 days',
				    heartbeats_keep interval DEFAULT '7 days',
				    ahead integer DEFAULT 7, at timestamptz DEFAULT now())
RETURNS TABLE (action text, object text, n bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, rdmaguard, pg_temp AS $$
DECLARE
	t record;
	p record;
	cut timestamptz;
	q text;
	held boolean;
	today date := (now() AT TIME ZONE 'UTC')::date;
BEGIN
	IF keep < '0' OR heartbeats_keep < '0' OR ahead < 0 OR ahead > 366 THEN
		RAISE EXCEPTION 'maintain: keep, heartbeats_keep and ahead must not be negative '
				'(ahead at most 366)';
	END IF;
	FOR object IN SELECT rdmaguard.create_partitions(today, today + ahead) LOOP
		action := 'created';
		n := 0;
		RETURN NEXT;
	END LOOP;
	FOR t IN SELECT * FROM rdmaguard.partitioned_tables() LOOP
		cut := at - CASE WHEN t.heartbeats THEN heartbeats_keep ELSE keep END;
		FOR p IN SELECT c.relname,
				(substr(c.relname, length(t.parent) + 3)::date + 1)::text
				|| ' 00:00:00+00' AS ends
			 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
			 WHERE i.inhparent = format('rdmaguard.%I', t.parent)::regclass
			   AND c.relname ~ ('^' || t.parent || '_p[0-9]{8}$')
			 ORDER BY c.relname LOOP
			CONTINUE WHEN p.ends::timestamptz > cut;
			object := p.relname;
			EXECUTE format('SELECT count(*) FROM rdmaguard.%I', p.relname) INTO n;
			held := false;
			IF t.parent = 'alerts' THEN
				EXECUTE format('SELECT EXISTS (SELECT 1 FROM rdmaguard.matches m, '
					       'rdmaguard.%I a WHERE m.hold AND a.seat = ANY (m.seats) '
					       'AND a.ts >= m.starts AND a.ts < m.ends)', p.relname)
					INTO held;
			END IF;
			IF held THEN
				action := 'held';
			ELSE
				EXECUTE format('DROP TABLE rdmaguard.%I', p.relname);
				action := 'dropped';
			END IF;
			RETURN NEXT;
		END LOOP;
	END LOOP;
	-- The rows that wait in a default partition are moved out by create_partitions(), so
	-- they reach their day's partition and its retention.
	action := 'pruned';
	FOR object, q IN VALUES
		('event_ids', 'DELETE FROM rdmaguard.event_ids WHERE received_at < $1'),
		('seat_addresses', 'DELETE FROM rdmaguard.seat_addresses WHERE until < $1'),
		('seat_changes', 'DELETE FROM rdmaguard.seat_changes WHERE received_at < $1'),
		('incidents', 'DELETE FROM rdmaguard.incidents WHERE updated_at < $1'),
		-- the peers of the alerts gone with their partitions (a held day's stay)
		('alert_peers', 'DELETE FROM rdmaguard.alert_peers p WHERE p.received_at < $1 AND '
				'NOT EXISTS (SELECT 1 FROM rdmaguard.alerts a WHERE '
				'a.received_at = p.received_at AND a.event_id = p.event_id)') LOOP
		EXECUTE q USING at - keep;
		GET DIAGNOSTICS n = ROW_COUNT;
		RETURN NEXT;
	END LOOP;
END
$$;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA rdmaguard FROM PUBLIC;
GRANT EXECUTE ON FUNCTION maintain(interval, interval, integer, timestamptz) TO rdmaguard_maintain;
-- Today's partitions and a week ahead, so that the first messages need no maintain().
SELECT count(*) AS partitions_created FROM rdmaguard.create_partitions(
	(now() AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date + 7);
RESET ROLE;
