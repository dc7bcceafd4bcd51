/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the files of the condition language (cond_*.c), not a public interface: value
 * kinds and values, resolved fields, the compiled form (nodes and constants) and the parser's
 * state that the lexer advances.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cond.h"
#include "event/event_json.h"

typedef __int128 i128;

/* Value kinds. */
enum {
	VK_NONE = 0,
	VK_INT,
	VK_ENUM, /* an event enum: number in i, names via ef->to_str */
	VK_STR,
	VK_BITS, /* access flags or event flags */
	VK_BOOL,
	VK_ADDR, /* 16 bytes, IPv4 as IPv4-mapped */
	VK_LIST, /* strings */
	VK_TIME, /* wall-clock ns */
};

struct value {
	uint8_t kind;
	uint8_t flags_kind; /* VK_BITS: EFK_ACCESS or EFK_FLAGS */
	i128 i;
	const char *s;
	size_t n;
	uint8_t addr[16];
	const struct event_field *ef;
	uint16_t nitems;
	const char *items[COND_LIST_MAX];
	uint16_t ilen[COND_LIST_MAX];
};

struct field_ref {
	char *name;
	uint8_t kind;
	uint8_t flags_kind;
	uint8_t df; /* DF_* or DF_NONE for an event field */
	bool node;
	const struct event_field *by_type[RG_EV__MAX];
	uint64_t type_mask; /* event types that have it (all for derived fields) */
};

_Static_assert(RG_EV__MAX < 64, "event type masks are 64-bit");
#define ALL_TYPES (RG_EV_BIT(RG_EV__MAX) - 2) /* every type but NONE */

/* Compiled form. */

enum {
	N_TRUE,
	N_FALSE,
	N_AND,
	N_OR,
	N_NOT,
	N_TRUTHY,
	N_CMP,
	N_IN,
	N_LINEAGE,
	N_ANCESTOR,
	N_PARENT,
	N_WITHIN,
};

enum {
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_CONTAINS,
	OP_GLOB,
	OP_STARTS,
	OP_ENDS,
};

struct kval {
	uint8_t kind; /* VK_INT, VK_STR, VK_BOOL, VK_ADDR, VK_ENUM, VK_BITS */
	i128 i;
	char *s;
	size_t n;
	uint8_t addr[16];
	int32_t *per_type; /* VK_ENUM: the number for each event type, -1 if no such name */
};

struct cnode {
	uint8_t type;
	uint8_t op;
	uint16_t a, b;
	uint16_t field, field2; /* field2 = NO_FIELD unless comparing two fields */
	uint16_t k, nk;		/* constants */
	bool by_type;		/* event.action == / in: true exactly for the types in mask */
	uint64_t mask;
	uint64_t bits; /* N_IN on flags (VK_BITS): the constants' bits together */
};

#define NO_FIELD 0xffff

struct cond {
	char *text;
	struct cnode *nodes;
	size_t nnodes, anodes;
	struct field_ref *fields;
	size_t nfields, afields;
	struct kval *ks;
	size_t nks, aks;
	uint16_t root;
};

/* The lexer and the parser. */

enum {
	T_END,
	T_IDENT,
	T_STRING,
	T_NUMBER,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_OP, /* comparison: op in tok.op */
	T_AND,
	T_OR,
	T_NOT,
	T_IN,
	T_TRUE,
	T_FALSE,
	T_FUNC, /* lineage, ancestor, parent, within: which in tok.op */
};

enum { FN_LINEAGE, FN_ANCESTOR, FN_PARENT, FN_WITHIN };

struct token {
	int type;
	int op;
	size_t pos, len;
	char *str; /* T_STRING decoded, T_IDENT copied, T_NUMBER text */
};

struct cparser {
	struct cond *c;
	const char *s;
	size_t len, i;
	struct token tok;
	size_t err_off;
	char *errbuf;
	size_t errlen;
	unsigned depth;
	bool in_lineage;
};

/* Sets the parser's error (message and byte offset); returns -EINVAL. */
int cond_err(struct cparser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Advances p->tok to the next token. 0, -EINVAL (cond_err) or -ENOMEM. */
int cond_next_token(struct cparser *p);
/* The number (or, with duration, the duration in ns) of a T_NUMBER token. */
int cond_parse_number(struct cparser *p, const struct token *t, bool duration, i128 *ret);
/* A token that can be a value (identifier, string, number, true, false), and its text. */
bool cond_token_is_value(const struct token *t);
const char *cond_token_text(const struct token *t);
