/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Login sessions in memory: a random token (the HttpOnly cookie), a CSRF token per session
 * (sent back by the page in a header on every write), expiry. Bounded: SESSIONS_MAX at once.
 */
#pragma once

#include <stdbool.h>

#include "accounts.h"

#define TOKEN_HEX      64 /* 32 random bytes */
#define SESSIONS_MAX   512
#define SESSION_IDLE_S (2 * 3600)
#define SESSION_LIFE_S (12 * 3600)

struct session_info {
	char user[ACCOUNT_NAME_MAX + 1];
	enum console_role role;
	char csrf[TOKEN_HEX + 1];
};

/* A new session for user; token receives the cookie's value. */
int session_create(const char *user, enum console_role role, char token[TOKEN_HEX + 1],
		   struct session_info *info);
/* The live session of token (refreshing its idle time), or -ENOENT. */
int session_lookup(const char *token, struct session_info *info);
void session_destroy(const char *token);
/* Constant-time comparison of a token sent by the page with the session's. */
bool token_equal(const char *a, const char *b);
int random_token(char out[TOKEN_HEX + 1]);
