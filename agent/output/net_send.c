/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sending a syslog output's spool: records read in order from the spool are framed (octet
 * counting, RFC 6587 3.4.1) into the send buffer and written to the non-blocking socket or
 * through OpenSSL; each stays in the in-flight window until its last byte was acknowledged by
 * the peer's TCP (bytes written - SIOCOUTQ) and the connection was still healthy confirm_ms
 * later, and only then is it removed from the spool (delivered).
 */
#include <errno.h>
#include <linux/sockios.h>
#include <openssl/err.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "net_state.h"
#include "rfc5424.h"
#include "spool.h"

static void mark_written(struct net *n)
{
	uint64_t wire = n->ssl ? BIO_number_written(SSL_get_wbio(n->ssl)) : n->plain_written;

	while (n->inf_marked < n->inf_count) {
		struct inflight *e = inf_at(n, n->inf_marked);

		if (e->plain_end > n->plain_written)
			break;
		e->wire_end = n->ssl ? wire : e->plain_end;
		n->inf_marked++;
		atomic_fetch_add(&n->out->c.sent, 1);
		atomic_fetch_add(&n->out->c.sent_bytes, e->bytes);
	}
}

int net_write(struct net *n, char *msg, size_t msgsize)
{
	while (n->sb_start < n->sb_end) {
		if (!n->ssl) {
			ssize_t k = send(n->fd, n->sbuf + n->sb_start, n->sb_end - n->sb_start,
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (k < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK) {
					n->want = POLLOUT;
					break;
				}
				snprintf(msg, msgsize, "%s", strerror(errno));
				return -errno;
			}
			n->sb_start += (size_t)k;
			n->plain_written += (uint64_t)k;
		} else {
			size_t chunk = n->tls_chunk ? n->tls_chunk
						    : MIN(n->sb_end - n->sb_start, (size_t)NET_TLS_CHUNK);
			int k, e;

			ERR_clear_error();
			errno = 0;
			k = SSL_write(n->ssl, n->sbuf + n->sb_start, (int)chunk);
			if (k > 0) {
				n->sb_start += (size_t)k;
				n->plain_written += (uint64_t)k;
				n->tls_chunk = 0;
				continue;
			}
			e = SSL_get_error(n->ssl, k);
			if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
				n->tls_chunk = chunk;
				n->want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
				break;
			}
			net_tls_error_string(n, k, e, msg, msgsize);
			return -EIO;
		}
	}
	if (n->sb_start == n->sb_end) {
		n->sb_start = n->sb_end = 0;
		n->want = 0;
	}
	mark_written(n);
	return 0;
}

int net_fill(struct net *n)
{
	size_t need = n->fbuf_cap + 32;

	while (n->inf_count < NET_INFLIGHT_MAX && n->inf_bytes < NET_INFLIGHT_BYTES) {
		struct spool_record rec;
		struct inflight *e;
		char pfx[24];
		size_t pl;
		int r;

		if (n->sbuf_cap - n->sb_end < need) {
			if (n->sb_start > 0 && n->tls_chunk == 0) {
				memmove(n->sbuf, n->sbuf + n->sb_start, n->sb_end - n->sb_start);
				n->sb_end -= n->sb_start;
				n->sb_start = 0;
			}
			if (n->sbuf_cap - n->sb_end < need)
				break;
		}
		r = spool_next(n->spool, &rec);
		if (r <= 0)
			return r;
		pl = rfc6587_prefix(rec.len, pfx);
		memcpy(n->sbuf + n->sb_end, pfx, pl);
		memcpy(n->sbuf + n->sb_end + pl, rec.data, rec.len);
		n->sb_end += pl + rec.len;
		n->plain_queued += pl + rec.len;
		e = inf_at(n, n->inf_count++);
		*e = (struct inflight){
			.seq = rec.seq,
			.plain_end = n->plain_queued,
			.bytes = (uint32_t)(pl + rec.len),
			.q = (uint8_t)rec.queue,
		};
		n->inf_bytes += e->bytes;
		if (n->any_sent && rec.seq <= n->max_seq_sent)
			atomic_fetch_add(&n->out->c.replayed, 1);
		else {
			n->max_seq_sent = rec.seq;
			n->any_sent = true;
		}
	}
	return 0;
}

void net_confirm(struct net *n, uint64_t now)
{
	uint64_t confirm = ms_to_ns(cfg_of(n)->confirm_ms);

	if (n->inf_acked < n->inf_marked) {
		int outq = 0;

		if (ioctl(n->fd, SIOCOUTQ, &outq) == 0 && outq >= 0) {
			uint64_t total = n->ssl ? BIO_number_written(SSL_get_wbio(n->ssl))
						: n->plain_written;
			uint64_t acked = total - MIN((uint64_t)outq, total);

			while (n->inf_acked < n->inf_marked &&
			       inf_at(n, n->inf_acked)->wire_end <= acked)
				inf_at(n, n->inf_acked++)->acked_ns = now;
		}
	}
	while (n->inf_acked > 0 && now >= inf_at(n, 0)->acked_ns + confirm) {
		struct inflight *e = inf_at(n, 0);

		spool_confirm(n->spool, e->q, e->seq);
		atomic_fetch_add(&n->out->c.delivered, 1);
		atomic_fetch_add(&n->out->c.delivered_bytes, e->bytes);
		n->inf_bytes -= e->bytes;
		n->inf_head = (n->inf_head + 1) % NET_INFLIGHT_MAX;
		n->inf_count--;
		n->inf_marked--;
		n->inf_acked--;
		n->cursor_dirty = true;
	}
}
