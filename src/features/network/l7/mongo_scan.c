/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/mongo_scan.h"

#include <string.h>

#include "features/network/l7/l7_common.h"

/* ---- the body scanner -------------------------------------------------------- */

static void sc_bytes(struct mongo_scan *c, uint8_t step, uint32_t n)
{
	c->mode = M_BYTES;
	c->step = step;
	c->left = n;
	c->bn = 0;
}

static void sc_skip(struct mongo_scan *c, uint32_t n, uint8_t after)
{
	c->mode = M_SKIP;
	c->left = n;
	c->after = after;
}

static void sc_text(struct mongo_scan *c, uint8_t mode, uint8_t step, uint16_t cap, uint32_t n)
{
	c->mode = mode;
	c->step = step;
	c->left = n;
	c->tn = 0;
	c->tcap = cap;
	c->tcut = false;
}

static void sc_bad(struct mongo_scan *c)
{
	c->mode = M_BAD;
}

/* Copy the collected text (printable, cut to cap) into dst; true when cut. */
static bool sc_take_text(const struct mongo_scan *c, char *dst, size_t cap)
{
	bool cut = enav_l7_copy_text(dst, cap, c->text, c->tn);
	return cut || c->tcut;
}

void enav_mongo_scan_init(struct mongo_scan *c, int32_t opcode, bool reply, bool want_status)
{
	memset(c, 0, sizeof(*c));
	c->reply = reply;
	switch (opcode) {
	case OP_MSG:
		sc_bytes(c, ST_FLAGS, 4);
		break;
	case OP_REPLY:
		sc_bytes(c, ST_REPLY_HDR, 20);
		break;
	case OP_QUERY:
		sc_bytes(c, ST_Q_FLAGS, 4);
		break;
	case OP_UPDATE:
	case OP_INSERT:
	case OP_GET_MORE:
	case OP_DELETE:
		sc_bytes(c, ST_L_INT, 4);
		break;
	default:
		c->mode = M_DONE;
		break;
	}
	c->flags_only = reply && !want_status;
}

/* Value of a reply element: read it (ok, code, codeName) or skip it. */
static void sc_value(struct mongo_scan *c)
{
	static const uint8_t fixed[256] = {
	    [0x01] = 8, [0x07] = 12, [0x08] = 1, [0x09] = 8,
	    [0x10] = 4, [0x11] = 8,  [0x12] = 8, [0x13] = 16,
	};
	uint8_t t = c->etype;

	if ((c->key == K_OK && (t == 0x01 || t == 0x10 || t == 0x12 || t == 0x08)) ||
	    (c->key == K_CODE && (t == 0x01 || t == 0x10 || t == 0x12))) {
		sc_bytes(c, ST_NUMVAL, fixed[t]);
		return;
	}
	switch (t) {
	case 0x06: /* undefined */
	case 0x0a: /* null */
	case 0x7f: /* max key */
	case 0xff: /* min key */
		sc_bytes(c, ST_ETYPE, 1);
		return;
	case 0x02:
	case 0x03:
	case 0x04:
	case 0x05:
	case 0x0c:
	case 0x0d:
	case 0x0e:
	case 0x0f:
		sc_bytes(c, ST_VLEN, 4);
		return;
	case 0x0b:
		sc_text(c, M_CSTR, ST_REGEX, 1, 0);
		return;
	default:
		if (fixed[t]) {
			sc_skip(c, fixed[t], ST_NEXT);
			return;
		}
		sc_bad(c);
	}
}

static double f64(const uint8_t *p)
{
	uint64_t v = (uint64_t)enav_l7_le32(p) | (uint64_t)enav_l7_le32(p + 4) << 32;
	double d;
	memcpy(&d, &v, sizeof(d));
	return d;
}

/* The bytes a step waited for are there: decide what comes next. */
static void sc_step(struct mongo_scan *c)
{
	switch (c->step) {
	case ST_FLAGS:
		c->flags = enav_l7_le32(c->buf);
		if (c->flags_only) {
			c->mode = M_DONE;
			return;
		}
		sc_bytes(c, ST_SECKIND, 1);
		return;
	case ST_SECKIND:
		if (c->buf[0] == 0)
			sc_bytes(c, ST_DOCLEN, 4);
		else if (c->buf[0] == 1)
			sc_bytes(c, ST_SEQLEN, 4);
		else
			sc_bad(c);
		return;
	case ST_SEQLEN: {
		uint32_t n = enav_l7_le32(c->buf);
		if (n < 5 || n > MONGO_MAX_MSG) {
			sc_bad(c);
			return;
		}
		sc_skip(c, n - 4, ST_GO_SECKIND);
		return;
	}
	case ST_REPLY_HDR: {
		c->flags = enav_l7_le32(c->buf);
		uint32_t returned = enav_l7_le32(c->buf + 16);
		if (c->flags_only || returned == 0) {
			c->mode = M_DONE;
			return;
		}
		sc_bytes(c, ST_DOCLEN, 4);
		return;
	}
	case ST_Q_FLAGS:
		c->flags = enav_l7_le32(c->buf);
		sc_text(c, M_CSTR, ST_Q_NS, ENAV_L7_TARGET_MAX, 0);
		return;
	case ST_L_INT:
		sc_text(c, M_CSTR, ST_L_NS, ENAV_L7_TARGET_MAX, 0);
		return;
	case ST_Q_NS:
	case ST_L_NS: {
		/* "<db>.<collection>": keep the collection. */
		const char *dot = memchr(c->text, '.', c->tn);
		c->have_ns = true;
		if (dot) {
			size_t at = (size_t)(dot - c->text) + 1;
			c->ns_cmd = c->tn - at == 4 && memcmp(dot + 1, "$cmd", 4) == 0 && !c->tcut;
			c->ns_cut =
			    enav_l7_copy_text(c->target, sizeof(c->target), dot + 1, c->tn - at) ||
			    c->tcut;
		}
		if (c->step == ST_Q_NS && c->ns_cmd) {
			c->target[0] = '\0';
			c->ns_cut = false;
			sc_skip(c, 8, ST_GO_DOCLEN);
			return;
		}
		c->have_target = dot != NULL;
		c->target_cut = c->ns_cut;
		c->mode = M_DONE;
		return;
	}
	case ST_DOCLEN: {
		uint32_t n = enav_l7_le32(c->buf);
		if (n < 5 || n > MONGO_MAX_MSG || (c->in_doc && n - 4 > c->doc_left)) {
			sc_bad(c);
			return;
		}
		c->in_doc = true;
		c->doc_left = n - 4;
		sc_bytes(c, ST_ETYPE, 1);
		return;
	}
	case ST_ETYPE:
		c->etype = c->buf[0];
		if (c->etype == 0) {
			/* End of the document: it must end exactly here. */
			if (c->doc_left != 0 || !c->reply)
				sc_bad(c);
			else
				c->mode = M_DONE;
			return;
		}
		sc_text(c, M_CSTR, ST_EKEY, c->reply ? KEY_CAP : ENAV_L7_OPERATION_MAX, 0);
		return;
	case ST_EKEY:
		if (!c->reply && c->tn == 0) { /* no command has an empty name */
			sc_bad(c);
			return;
		}
		if (!c->reply) {
			if (!c->nested && c->etype == 0x03 && c->tn == 6 && !c->tcut &&
			    memcmp(c->text, "$query", 6) == 0) {
				c->nested = true;
				sc_bytes(c, ST_DOCLEN, 4);
				return;
			}
			c->have_op = true;
			c->op_cut = sc_take_text(c, c->op, sizeof(c->op));
			if (c->etype == 0x02)
				sc_bytes(c, ST_SLEN, 4);
			else
				c->mode = M_DONE;
			return;
		}
		c->key = K_OTHER;
		if (!c->tcut && c->tn == 2 && memcmp(c->text, "ok", 2) == 0)
			c->key = K_OK;
		else if (!c->tcut && c->tn == 4 && memcmp(c->text, "code", 4) == 0)
			c->key = K_CODE;
		else if (!c->tcut && c->tn == 8 && memcmp(c->text, "codeName", 8) == 0)
			c->key = K_CODENAME;
		sc_value(c);
		return;
	case ST_SLEN: {
		uint32_t n = enav_l7_le32(c->buf);
		if (n < 1 || n > c->doc_left) {
			sc_bad(c);
			return;
		}
		sc_text(c, M_STR, ST_SVAL, ENAV_L7_TARGET_MAX, n);
		return;
	}
	case ST_SVAL:
		c->have_target = true;
		c->target_cut = sc_take_text(c, c->target, sizeof(c->target));
		c->mode = M_DONE;
		return;
	case ST_VLEN: {
		uint32_t n = enav_l7_le32(c->buf);
		uint8_t t = c->etype;
		uint64_t rest; /* bytes after the length */
		if (t == 0x02 || t == 0x0d || t == 0x0e) {
			if (n < 1) {
				sc_bad(c);
				return;
			}
			rest = n;
		} else if (t == 0x05) {
			rest = (uint64_t)n + 1;
		} else if (t == 0x0c) {
			rest = (uint64_t)n + 12;
		} else { /* document, array, code with scope: the length counts itself */
			if (n < 5) {
				sc_bad(c);
				return;
			}
			rest = n - 4;
		}
		if (rest > c->doc_left) {
			sc_bad(c);
			return;
		}
		if (t == 0x02 && c->key == K_CODENAME) {
			sc_text(c, M_STR, ST_CODENAME, CODENAME_CAP, n);
			return;
		}
		sc_skip(c, (uint32_t)rest, ST_NEXT);
		return;
	}
	case ST_NUMVAL: {
		int64_t v;
		bool one;
		switch (c->etype) {
		case 0x01: {
			double d = f64(c->buf);
			one = d == 1.0;
			v = d >= -2147483648.0 && d <= 2147483647.0 ? (int64_t)d : -1;
			break;
		}
		case 0x10:
			v = (int32_t)enav_l7_le32(c->buf);
			one = v == 1;
			break;
		case 0x12:
			v = (int64_t)((uint64_t)enav_l7_le32(c->buf) |
				      (uint64_t)enav_l7_le32(c->buf + 4) << 32);
			one = v == 1;
			break;
		default: /* bool */
			v = c->buf[0];
			one = c->buf[0] == 1;
			break;
		}
		if (c->key == K_OK) {
			c->ok_seen = true;
			c->ok_one = one;
		} else {
			c->code_seen = true;
			c->code = v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : -1;
		}
		sc_bytes(c, ST_ETYPE, 1);
		return;
	}
	case ST_CODENAME:
		c->codename_seen = true;
		c->codename_cut = sc_take_text(c, c->codename, sizeof(c->codename));
		sc_bytes(c, ST_ETYPE, 1);
		return;
	case ST_REGEX:
		sc_text(c, M_CSTR, ST_REGEX2, 1, 0);
		return;
	case ST_GO_SECKIND:
		sc_bytes(c, ST_SECKIND, 1);
		return;
	case ST_GO_DOCLEN:
		sc_bytes(c, ST_DOCLEN, 4);
		return;
	case ST_REGEX2:
	case ST_NEXT:
	default:
		sc_bytes(c, ST_ETYPE, 1);
		return;
	}
}

/* Account for k bytes inside the current document. */
static bool sc_consume(struct mongo_scan *c, uint32_t k)
{
	if (!c->in_doc)
		return true;
	if (k > c->doc_left) {
		sc_bad(c);
		return false;
	}
	c->doc_left -= k;
	return true;
}

void enav_mongo_scan_feed(struct mongo_scan *c, const uint8_t *p, uint32_t n)
{
	while (n > 0 && c->mode <= M_STR) {
		uint32_t k;
		switch (c->mode) {
		case M_BYTES:
		case M_SKIP:
		case M_STR:
			k = n < c->left ? n : c->left;
			if (!sc_consume(c, k))
				return;
			if (c->mode == M_BYTES) {
				memcpy(c->buf + c->bn, p, k);
				c->bn = (uint8_t)(c->bn + k);
			} else if (c->mode == M_STR) {
				/* The string's last byte is its NUL: not text. */
				uint32_t text = c->left - 1;
				uint32_t t = k < text ? k : text;
				for (uint32_t i = 0; i < t; i++) {
					if (c->tn + 1u < c->tcap)
						c->text[c->tn++] = (char)p[i];
					else
						c->tcut = true;
				}
				if (k == c->left && p[k - 1] != 0) {
					sc_bad(c);
					return;
				}
			}
			c->left -= k;
			p += k;
			n -= k;
			if (c->left == 0) {
				if (c->mode == M_SKIP)
					c->step = c->after;
				sc_step(c);
			}
			break;
		case M_CSTR: {
			const uint8_t *z = memchr(p, 0, n);
			k = z ? (uint32_t)(z - p) + 1 : n;
			if (!sc_consume(c, k))
				return;
			uint32_t t = z ? k - 1 : k;
			for (uint32_t i = 0; i < t; i++) {
				if (c->tn + 1u < c->tcap)
					c->text[c->tn++] = (char)p[i];
				else
					c->tcut = true;
			}
			p += k;
			n -= k;
			if (z)
				sc_step(c);
			break;
		}
		default:
			return;
		}
	}
}

/* n bytes were not captured: fine inside a skip, otherwise the scan ends. */
void enav_mongo_scan_uncaptured(struct mongo_scan *c, uint32_t n)
{
	if (c->mode > M_STR || n == 0)
		return;
	if (c->mode == M_SKIP && n < c->left) {
		if (sc_consume(c, n))
			c->left -= n;
		return;
	}
	c->mode = M_CUT;
}
