/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/nats_wire.h"

#include <string.h>

#include "features/network/l7/l7.h"
#include "model/l7_text.h"

static const struct {
	const char *word;
	uint8_t op;
	uint8_t stream_mask; /* bit per enum enav_l7_stream */
} n_words[] = {
    {"CONNECT", NO_CONNECT, 1}, {"PUB", NO_PUB, 1},   {"HPUB", NO_HPUB, 1}, {"SUB", NO_SUB, 1},
    {"UNSUB", NO_UNSUB, 1},	{"PING", NO_PING, 3}, {"PONG", NO_PONG, 3}, {"INFO", NO_INFO, 2},
    {"MSG", NO_MSG, 2},		{"HMSG", NO_HMSG, 2}, {"+OK", NO_OK, 2},    {"-ERR", NO_ERR, 2},
};

char enav_nats_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

bool enav_nats_ieq(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);

	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (enav_nats_upper(a[i]) != b[i])
			return false;
	return true;
}

bool enav_nats_space(uint8_t c)
{
	return c == ' ' || c == '\t';
}

uint8_t enav_nats_op_of(const char *w, size_t n, int stream)
{
	for (size_t i = 0; i < sizeof(n_words) / sizeof(n_words[0]); i++)
		if ((n_words[i].stream_mask >> stream & 1) && enav_nats_ieq(w, n, n_words[i].word))
			return n_words[i].op;
	return NO_NONE;
}

/* Does this fragment start with one of the stream's protocol keywords,
 * followed by a delimiter? */
bool enav_nats_starts_line(const uint8_t *d, size_t n, int stream)
{
	size_t w = 0;

	while (w < n && w < 8 && !enav_nats_space(d[w]) && d[w] != '\r' && d[w] != '\n')
		w++;
	if (w == n || w == 0)
		return false;
	return enav_nats_op_of((const char *)d, w, stream) != NO_NONE;
}

bool enav_nats_parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

/* The bounded destination of a subject (see nats.c's file comment). */
bool enav_nats_target(char *dst, const char *subj, size_t n, bool cut_before)
{
	static const char inbox[] = "_INBOX.", jsack[] = "$JS.ACK.";

	if (n >= sizeof(inbox) - 1 && memcmp(subj, inbox, sizeof(inbox) - 1) == 0) {
		memcpy(dst, "_INBOX.*", sizeof("_INBOX.*"));
		return false;
	}
	if (n >= sizeof(jsack) - 1 && memcmp(subj, jsack, sizeof(jsack) - 1) == 0) {
		size_t p = sizeof(jsack) - 1;
		while (p < n) {
			size_t e = p;
			bool digits = true;
			while (e < n && subj[e] != '.') {
				digits = digits && subj[e] >= '0' && subj[e] <= '9';
				e++;
			}
			if (digits && e > p) {
				char tmp[ENAV_L7_TARGET_MAX];
				size_t k = p < sizeof(tmp) - 2 ? p : sizeof(tmp) - 2;
				memcpy(tmp, subj, k);
				tmp[k++] = '*';
				bool cut = enav_l7_copy_text(dst, ENAV_L7_TARGET_MAX, tmp, k);
				return cut || p > k - 1;
			}
			p = e + 1;
		}
	}
	return enav_l7_copy_text(dst, ENAV_L7_TARGET_MAX, subj, n) || cut_before;
}

/* op.status of a -ERR: the leading capitalised words of its text.  Returns
 * true when they had to be cut. */
bool enav_nats_err_status(char *dst, const char *line, size_t n)
{
	size_t i = 0, o = 0;
	char buf[N_HEAD];

	while (i < n && (enav_nats_space((uint8_t)line[i]) || line[i] == '\''))
		i++;
	while (i < n) {
		size_t e = i;
		if (line[i] < 'A' || line[i] > 'Z')
			break;
		while (e < n &&
		       ((line[e] >= 'A' && line[e] <= 'Z') || (line[e] >= 'a' && line[e] <= 'z') ||
			(line[e] >= '0' && line[e] <= '9')))
			e++;
		if (e < n && !enav_nats_space((uint8_t)line[e]) && line[e] != '\'')
			break; /* a word running into other characters */
		if (o)
			buf[o++] = ' ';
		memcpy(buf + o, line + i, e - i);
		o += e - i;
		i = e;
		while (i < n && enav_nats_space((uint8_t)line[i]))
			i++;
	}
	if (o == 0) {
		memcpy(dst, "-ERR", sizeof("-ERR"));
		return false;
	}
	return enav_l7_copy_text(dst, ENAV_L7_STATUS_MAX, buf, o);
}

void enav_nats_json_byte(struct n_json *j, uint8_t c)
{
	if (j->in_str) {
		if (j->esc) {
			j->esc = false;
		} else if (c == '\\') {
			j->esc = true;
			j->key_over = true; /* an escaped key is not "verbose" */
			return;
		} else if (c == '"') {
			j->in_str = false;
			if (j->key_capture)
				j->key_done = true;
			return;
		}
		if (j->key_capture) {
			if (j->key_len < sizeof(j->key))
				j->key[j->key_len++] = (char)c;
			else
				j->key_over = true;
		}
		return;
	}
	switch (c) {
	case '{':
	case '[':
		if (j->depth < 255)
			j->depth++;
		j->expect_key = j->depth == 1 && c == '{';
		j->want_value = false;
		break;
	case '}':
	case ']':
		if (j->depth)
			j->depth--;
		j->want_value = false;
		break;
	case '"':
		j->in_str = true;
		j->key_capture = j->depth == 1 && j->expect_key;
		j->key_len = 0;
		j->key_over = false;
		j->key_done = false;
		j->want_value = false;
		break;
	case ':':
		if (j->depth == 1 && j->key_done)
			j->want_value =
			    !j->key_over && j->key_len == 7 && memcmp(j->key, "verbose", 7) == 0;
		j->key_done = false;
		j->expect_key = false;
		break;
	case ',':
		if (j->depth == 1)
			j->expect_key = true;
		j->want_value = false;
		break;
	case ' ':
	case '\t':
	case '\r':
	case '\n':
		break;
	default:
		if (j->want_value && j->depth == 1 && (c == 't' || c == 'f'))
			j->verbose = c == 't';
		j->want_value = false;
		break;
	}
}
