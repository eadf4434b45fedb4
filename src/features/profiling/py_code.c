/* SPDX-License-Identifier: Apache-2.0 */
/* CPython 3.11 code objects out of a process's memory: py_code.h. */
#include "features/profiling/py_code.h"
#include "platform/parse.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

/*
 * CPython 3.11's object layouts on x86-64 (Include/object.h,
 * Include/cpython/object.h, unicodeobject.h, bytesobject.h, structmember.h).
 * These are the interpreter's ABI for extension modules, fixed within a
 * minor version; what the target can state itself (the code object's
 * members) is read from it instead.
 */
enum {
	OB_TYPE = 8,	    /* PyObject.ob_type */
	OB_SIZE = 16,	    /* PyVarObject.ob_size */
	TP_NAME = 24,	    /* PyTypeObject.tp_name */
	TP_MEMBERS = 240,   /* PyTypeObject.tp_members */
	MEMBER_SIZE = 40,   /* sizeof(PyMemberDef) */
	MEMBER_TYPE = 8,    /* PyMemberDef.type (int) */
	MEMBER_OFFSET = 16, /* PyMemberDef.offset (Py_ssize_t) */
	MEMBERS_MAX = 64,   /* 3.11's code type has 14 */
	T_INT = 1,	    /* structmember.h kinds */
	T_OBJECT = 6,
	T_OBJECT_EX = 16,
	STR_LENGTH = 16,       /* PyASCIIObject.length */
	STR_STATE = 32,	       /* PyASCIIObject.state (bit-field word) */
	STR_ASCII_DATA = 48,   /* sizeof(PyASCIIObject) */
	STR_COMPACT_DATA = 72, /* sizeof(PyCompactUnicodeObject) */
	BYTES_DATA = 32,       /* PyBytesObject.ob_sval */
	CODE_HEADER_MAX = 512, /* the members read must lie below this */
};

/* PyASCIIObject.state: interned:2, kind:3, compact:1, ascii:1, ready:1,
 * from the least significant bit (the x86-64 ABI's bit-field order). */
#define STATE_KIND(s)	 (((s) >> 2) & 7)
#define STATE_COMPACT(s) (((s) >> 5) & 1)
#define STATE_ASCII(s)	 (((s) >> 6) & 1)
#define STATE_READY(s)	 (((s) >> 7) & 1)

int enav_py_read_pid(void *ctx, uint64_t addr, void *buf, size_t n)
{
	pid_t pid = *(const pid_t *)ctx;
	struct iovec local = {.iov_base = buf, .iov_len = n};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = n};
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return -errno;
	return (size_t)got == n ? 0 : -EFAULT;
}

int enav_py_mem_read(struct enav_py_mem *m, uint64_t addr, void *buf, size_t n)
{
	if (n == 0)
		return 0;
	if (addr == 0 || addr + n < addr)
		return -EFAULT;
	if (n > m->budget)
		return -E2BIG;
	m->budget -= n;
	return m->read(m->ctx, addr, buf, n);
}

static int read_u64(struct enav_py_mem *m, uint64_t addr, uint64_t *out)
{
	return enav_py_mem_read(m, addr, out, sizeof(*out));
}

/* The object at addr is of type want (when the caller knows it). */
static int check_type(struct enav_py_mem *m, uint64_t addr, uint64_t want)
{
	uint64_t type;
	int err = read_u64(m, addr + OB_TYPE, &type);
	if (err)
		return err;
	return !want || type == want ? 0 : -EPROTO;
}

/* A C string of the target (a member or type name) equals want. */
static int c_string_is(struct enav_py_mem *m, uint64_t addr, const char *want)
{
	char got[32];
	size_t n = strlen(want) + 1;
	if (n > sizeof(got))
		return -EINVAL;
	int err = enav_py_mem_read(m, addr, got, n);
	if (err)
		return err;
	return memcmp(got, want, n) == 0;
}

int enav_py_code_layout_read(struct enav_py_mem *m, const struct enav_py_types *types,
			     struct enav_py_code_layout *out)
{
	static const struct {
		const char *name;
		bool is_int;
		size_t at;
	} want[] = {
	    {"co_filename", false, offsetof(struct enav_py_code_layout, filename)},
	    {"co_name", false, offsetof(struct enav_py_code_layout, name)},
	    {"co_qualname", false, offsetof(struct enav_py_code_layout, qualname)},
	    {"co_firstlineno", true, offsetof(struct enav_py_code_layout, firstlineno)},
	    {"co_linetable", false, offsetof(struct enav_py_code_layout, linetable)},
	};
	uint64_t name, members;
	int err;

	memset(out, 0, sizeof(*out));
	out->types = *types;
	if (!types->code)
		return -EINVAL;
	if ((err = read_u64(m, types->code + TP_NAME, &name)) ||
	    (err = read_u64(m, types->code + TP_MEMBERS, &members)))
		return err;
	if ((err = c_string_is(m, name, "code")) <= 0)
		return err ? err : -EPROTO;
	unsigned found = 0;
	for (unsigned i = 0; i < MEMBERS_MAX; i++) {
		uint8_t def[MEMBER_SIZE];
		if ((err = enav_py_mem_read(m, members + (uint64_t)i * MEMBER_SIZE, def,
					    sizeof(def))))
			return err;
		uint64_t mname;
		int32_t kind;
		int64_t offset;
		memcpy(&mname, def, 8);
		memcpy(&kind, def + MEMBER_TYPE, 4);
		memcpy(&offset, def + MEMBER_OFFSET, 8);
		if (!mname)
			break; /* the table's end */
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			if (found & 1u << k)
				continue;
			if ((err = c_string_is(m, mname, want[k].name)) < 0)
				return err;
			if (!err)
				continue;
			bool kind_ok = want[k].is_int ? kind == T_INT
						      : kind == T_OBJECT || kind == T_OBJECT_EX;
			if (!kind_ok || offset < (int64_t)OB_SIZE || offset > CODE_HEADER_MAX - 8)
				return -EPROTO;
			memcpy((char *)out + want[k].at, &(uint32_t){(uint32_t)offset}, 4);
			found |= 1u << k;
			break;
		}
	}
	return found == (1u << (sizeof(want) / sizeof(want[0]))) - 1 ? 0 : -EPROTO;
}

/* One code point as UTF-8 into out (room for 4); control characters and
 * surrogates as '?'.  The bytes written. */
static size_t put_utf8(uint32_t c, char *out)
{
	if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff) {
		out[0] = '?';
		return 1;
	}
	return enav_utf8_put(c, out);
}

int enav_py_str_read(struct enav_py_mem *m, const struct enav_py_types *types, uint64_t addr,
		     char *out, size_t cap)
{
	uint8_t head[STR_ASCII_DATA];
	int64_t length;
	uint32_t state;
	int err;

	if (cap == 0)
		return -EINVAL;
	out[0] = '\0';
	if ((err = enav_py_mem_read(m, addr, head, sizeof(head))))
		return err;
	uint64_t type;
	memcpy(&type, head + OB_TYPE, 8);
	memcpy(&length, head + STR_LENGTH, 8);
	memcpy(&state, head + STR_STATE, 4);
	unsigned kind = STATE_KIND(state);
	if ((types->str && type != types->str) || length < 0 || !STATE_COMPACT(state) ||
	    !STATE_READY(state) || (kind != 1 && kind != 2 && kind != 4) ||
	    (STATE_ASCII(state) && kind != 1))
		return -EPROTO;
	/* No more characters than the output could hold, one byte each. */
	size_t chars = (uint64_t)length < cap - 1 ? (size_t)length : cap - 1;
	uint64_t data = addr + (STATE_ASCII(state) ? STR_ASCII_DATA : STR_COMPACT_DATA);
	uint8_t raw[(ENAV_PY_NAME_MAX - 1) * 4];
	if (chars * kind > sizeof(raw))
		chars = sizeof(raw) / kind;
	if ((err = enav_py_mem_read(m, data, raw, chars * kind)))
		return err;
	size_t n = 0;
	for (size_t i = 0; i < chars; i++) {
		uint32_t c = kind == 1 ? raw[i]
			     : kind == 2
				 ? (uint32_t)raw[2 * i] | raw[2 * i + 1] << 8
				 : (uint32_t)raw[4 * i] | raw[4 * i + 1] << 8 |
				       raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		char enc[4];
		size_t k = put_utf8(c, enc);
		if (n + k > cap - 1)
			break;
		memcpy(out + n, enc, k);
		n += k;
	}
	out[n] = '\0';
	return (int)n;
}

long enav_py_bytes_read(struct enav_py_mem *m, const struct enav_py_types *types, uint64_t addr,
			uint8_t *out, size_t cap)
{
	int64_t size;
	int err = check_type(m, addr, types->bytes);
	if (err || (err = enav_py_mem_read(m, addr + OB_SIZE, &size, sizeof(size))))
		return err;
	if (size < 0)
		return -EPROTO;
	if ((uint64_t)size > cap)
		return -E2BIG;
	if ((err = enav_py_mem_read(m, addr + BYTES_DATA, out, (size_t)size)))
		return err;
	return (long)size;
}

int enav_py_code_read(struct enav_py_mem *m, const struct enav_py_code_layout *l, uint64_t addr,
		      struct enav_py_code *out)
{
	uint8_t head[CODE_HEADER_MAX];
	uint32_t end = l->filename;
	const uint32_t at[] = {l->name, l->qualname, l->firstlineno, l->linetable};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (at[i] > end)
			end = at[i];
	if (end > CODE_HEADER_MAX - 8)
		return -EINVAL;
	int err = enav_py_mem_read(m, addr, head, end + 8);
	if (err)
		return err;
	uint64_t type, qualname, filename, linetable;
	int32_t firstlineno;
	memcpy(&type, head + OB_TYPE, 8);
	if (!l->types.code || type != l->types.code)
		return -EPROTO;
	memcpy(&qualname, head + l->qualname, 8);
	memcpy(&filename, head + l->filename, 8);
	memcpy(&linetable, head + l->linetable, 8);
	memcpy(&firstlineno, head + l->firstlineno, 4);
	out->firstlineno = firstlineno;
	out->linetable_len = 0;
	if ((err = enav_py_str_read(m, &l->types, qualname, out->qualname, sizeof(out->qualname))) <
		0 ||
	    (err = enav_py_str_read(m, &l->types, filename, out->filename, sizeof(out->filename))) <
		0)
		return err;
	long n = enav_py_bytes_read(m, &l->types, linetable, out->linetable, ENAV_PY_LINETABLE_MAX);
	if (n < 0)
		return (int)n;
	out->linetable_len = (size_t)n;
	return 0;
}

/* ---- the 3.11 location table (CPython's Objects/locations.md) ------------- */

/* An unsigned varint: 6-bit chunks, least significant first, bit 6 set on
 * every chunk but the last.  Longer than 30 bits is malformed. */
static bool varint(const uint8_t *tab, size_t n, size_t *i, uint32_t *out)
{
	uint32_t v = 0;
	for (unsigned shift = 0; shift <= 24; shift += 6) {
		if (*i >= n)
			return false;
		uint8_t b = tab[(*i)++];
		v |= (uint32_t)(b & 63) << shift;
		if (!(b & 64)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* A signed varint: the unsigned one's lowest bit is the sign. */
static bool svarint(const uint8_t *tab, size_t n, size_t *i, int64_t *out)
{
	uint32_t v;
	if (!varint(tab, n, i, &v))
		return false;
	*out = v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
	return true;
}

/* Skip n varints (columns and end lines this reader does not keep). */
static bool skip_varints(const uint8_t *tab, size_t n, size_t *i, unsigned count)
{
	uint32_t v;
	while (count--)
		if (!varint(tab, n, i, &v))
			return false;
	return true;
}

bool enav_py_line_at(const uint8_t *tab, size_t n, int firstlineno, uint32_t unit, int *line)
{
	int64_t cur = firstlineno;
	uint64_t addr = 0;
	size_t i = 0;

	while (i < n) {
		uint8_t first = tab[i++];
		if (!(first & 0x80))
			return false; /* every entry starts with its high bit set */
		unsigned code = first >> 3 & 15, len = (first & 7) + 1;
		int64_t delta = 0;
		bool located = true;
		if (code == 15) {
			located = false; /* PY_CODE_LOCATION_INFO_NONE */
		} else if (code == 14) {
			/* long form: line delta, end line delta, column, end column */
			if (!svarint(tab, n, &i, &delta) || !skip_varints(tab, n, &i, 3))
				return false;
		} else if (code == 13) {
			if (!svarint(tab, n, &i, &delta)) /* no columns */
				return false;
		} else if (code >= 10) {
			delta = code - 10; /* one line: start and end column bytes */
			if (n - i < 2)
				return false;
			i += 2;
		} else {
			if (i >= n) /* short form: the same line, one column byte */
				return false;
			i++;
		}
		cur += delta;
		if (cur < INT32_MIN || cur > INT32_MAX)
			return false;
		if (unit < addr + len) {
			*line = located ? (int)cur : -1;
			return true;
		}
		addr += len;
	}
	return false;
}
