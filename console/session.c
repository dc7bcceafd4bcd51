/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session table: tokens from OpenSSL's RAND_bytes, compared in constant time; the oldest
 * session makes room when the table is full.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "session.h"

struct session {
	bool used;
	char token[TOKEN_HEX + 1];
	struct session_info info;
	time_t created, seen;
};

static struct session sessions[SESSIONS_MAX];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int random_token(char out[TOKEN_HEX + 1])
{
	unsigned char b[TOKEN_HEX / 2];

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -EIO;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

bool token_equal(const char *a, const char *b)
{
	return a && b && strlen(a) == TOKEN_HEX && strlen(b) == TOKEN_HEX &&
	       CRYPTO_memcmp(a, b, TOKEN_HEX) == 0;
}

static bool expired(const struct session *s, time_t now)
{
	return now - s->seen > SESSION_IDLE_S || now - s->created > SESSION_LIFE_S;
}

int session_create(const char *user, enum console_role role, char token[TOKEN_HEX + 1],
		   struct session_info *info)
{
	struct session *slot = NULL;
	time_t now = now_s();
	int r;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < SESSIONS_MAX; i++) {
		struct session *s = &sessions[i];

		if (s->used && expired(s, now))
			s->used = false;
		if (!s->used && !slot)
			slot = s;
	}
	if (!slot) {
		slot = &sessions[0];
		for (size_t i = 1; i < SESSIONS_MAX; i++)
			if (sessions[i].seen < slot->seen)
				slot = &sessions[i];
	}
	memset(slot, 0, sizeof(*slot));
	r = random_token(slot->token);
	if (r == 0)
		r = random_token(slot->info.csrf);
	if (r == 0) {
		snprintf(slot->info.user, sizeof(slot->info.user), "%s", user);
		slot->info.role = role;
		slot->created = slot->seen = now;
		slot->used = true;
		memcpy(token, slot->token, TOKEN_HEX + 1);
		*info = slot->info;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

static struct session *find(const char *token, time_t now)
{
	for (size_t i = 0; i < SESSIONS_MAX; i++) {
		struct session *s = &sessions[i];

		if (s->used && token_equal(s->token, token)) {
			if (expired(s, now)) {
				s->used = false;
				return NULL;
			}
			return s;
		}
	}
	return NULL;
}

int session_lookup(const char *token, struct session_info *info)
{
	time_t now = now_s();
	struct session *s;
	int r = -ENOENT;

	if (!token || strlen(token) != TOKEN_HEX)
		return -ENOENT;
	pthread_mutex_lock(&lock);
	s = find(token, now);
	if (s) {
		s->seen = now;
		*info = s->info;
		r = 0;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

void session_destroy(const char *token)
{
	struct session *s;

	if (!token || strlen(token) != TOKEN_HEX)
		return;
	pthread_mutex_lock(&lock);
	s = find(token, now_s());
	if (s)
		memset(s, 0, sizeof(*s));
	pthread_mutex_unlock(&lock);
}
