/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Events as JSON, and the table of named event fields that the rule engine also uses. The
 * table is event_fields.c's, the writer event_writer.c's, the reader event_reader.c's (with
 * its index of the table in event_schema.c; the tokens are common/jsonlex's).
 *
 * One event is one JSON object (one line in a record file). Common fields:
 *   "@timestamp"            RFC 3339 UTC
 *   "event.action"          event_type_to_string(): "verbs", "exec", "device_present", ...
 *   "event.provider"        "sensor" | "inventory" | "netlink" | "agent"
 *   "event.sequence"        per-run counter
 *   "event.flags"           ["denied", "killed", "truncated", "malformed", "soft", "failed"]
 *   "process.pid", "process.thread.id", "process.parent.pid", "process.user.id",
 *   "process.name" (comm), "process.start_boot_ns"
 * and per-type fields listed in event_fields.c (e.g. "rdma.op", "rdma.mr.length",
 * "rdma.mr.access" as an array of names, "rdma.peer.address"). Dotted names are nested objects.
 * Zero-valued fields are omitted. Unknown keys in input are ignored (forward compatibility); a key
 * with the wrong type is an error.
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "common/jsonw.h"

enum event_field_kind {
	EFK_U32,
	EFK_I32,
	EFK_U64,
	EFK_HEX32,  /* u32 written as "0x%x" string (PCI ids) */
	EFK_STR,    /* fixed char array */
	EFK_ENUM,   /* u32 with to/from string functions */
	EFK_ACCESS, /* u32 access bits <-> array of names */
	EFK_FLAGS,  /* event flags <-> array of names */
	EFK_GID,    /* 16 bytes <-> IPv6 text */
	EFK_GID_V4, /* output only: the dotted quad if the GID is IPv4-mapped */
	EFK_ADDR,   /* struct rg_addr <-> "address" text (family implied) */
	EFK_PORT,   /* struct rg_addr's port (offset of the struct) */
	EFK_ARGS,   /* NUL-separated argv <-> array of strings; aux = offset of the u32 length */
	EFK_BOOLFLAG, /* a bit of the event flags as a bool; aux = the bit */
	EFK_TIME,   /* u64 wall-clock ns <-> RFC 3339 */
};

struct event_field {
	const char *name; /* dotted JSON path, also the rule field name */
	uint16_t kind;	  /* enum event_field_kind */
	uint16_t offset;  /* into struct rg_event */
	uint16_t size;	  /* bytes, for EFK_STR */
	uint32_t aux; /* EFK_ARGS, EFK_BOOLFLAG: below; EFK_U32 with present(): the offset of the
		       * u32 the reader sets to 1 when it reads the field */
	const char *(*to_str)(unsigned);
	int (*from_str)(const char *);
	/* If set, the field is written only when this says so (zero may be meaningful). */
	int (*present)(const struct rg_event *ev);
};

/* "event.flags" names, in RG_EVF_* bit order: what the writer writes and conditions compare. */
#define EVENT_NFLAGS 7
extern const char *const event_flag_names[EVENT_NFLAGS];

/* The fields every event type has (the process, the event's kind and time...). Returns the count. */
size_t event_fields_common(const struct event_field **ret);
/* The fields of an event type besides the common ones. Returns the count. */
size_t event_fields(unsigned type, const struct event_field **ret);
/* The field called name for that event type, or NULL. Common fields are found for every type. */
const struct event_field *event_field_find(unsigned type, const char *name);

/* Writes an event's fields into w's top-level object (what is there stays, a key set again is
 * replaced). 0, or -ENOMEM. */
int event_to_jw(const struct rg_event *ev, struct jw *w);
/* The same as a json-c object (written, then parsed: for tests and the cold paths). NULL on
 * allocation failure. */
struct json_object *event_to_json(const struct rg_event *ev);
/*
 * Fills ev from a JSON object. Returns 0, or -EINVAL with a message in err ("rdma.mr.length:
 * expected an integer").
 */
int event_from_json(struct json_object *obj, struct rg_event *ev, char *err, size_t errlen);

/*
 * Reading events from JSON text without json-c (replay's hot path): a strict RFC 8259 reader
 * that keeps only the values at the events' field paths. A reader is sized for lines of at
 * most max_len bytes (its memory: about 3 x max_len + 16 KiB, allocated once) and reused.
 * event_reader_read(): one event from text[0..len) (a JSON object, nothing after it but
 * whitespace), where text[len] is a NUL byte (C strings and replay's lines are). 0; -EINVAL
 * with a message in err and, for a JSON syntax error, *col the 1-based column of the byte at
 * fault (0 for a field error: "rdma.mr.length: expected ..."); -E2BIG past max_len. Fields are
 * read as event_from_json() reads them.
 */
struct event_reader;
int event_reader_new(size_t max_len, struct event_reader **ret);
void event_reader_free(struct event_reader *r);
int event_reader_read(struct event_reader *r, const char *text, size_t len, struct rg_event *ev,
		      size_t *col, char *err, size_t errlen);

/* Dotted-path helpers over json-c objects. */
struct json_object *json_get_path(struct json_object *obj, const char *path);
/* Sets obj[path] = val, creating intermediate objects; takes the reference to val. 0 or -errno.
 * path must live as long as obj (a string literal or a static table's name): its last key is
 * used in place, not copied. */
int json_set_path(struct json_object *obj, const char *path, struct json_object *val);
