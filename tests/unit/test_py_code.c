/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for CPython 3.11 code objects read from a process's memory
 * (src/features/profiling/py_code.c).
 *
 * The real case: Debian's python3.11 runs a script that prints the address
 * of its code, str and bytes types and of known code objects (ASCII,
 * Latin-1, UCS-2 and UCS-4 names, a nested qualified name, a name longer
 * than the cap) with what Python itself says of them, and, for every code
 * object of 60 standard-library modules, its location table and
 * co_lines().  The test reads the objects out of the live process with
 * process_vm_readv and decodes every table, instruction by instruction;
 * both must agree with Python exactly.  Without python3.11 it skips with the
 * reason (a failure with CI=true).
 *
 * The hostile cases read forged memory: wrong types, lengths and kinds,
 * reads past the budget, malformed tables.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "features/profiling/py_code.h"
#include "platform/numfmt.h"
#include "py_target.h"

static const char target_script[] =
    "import glob\n"
    "import sys\n"
    "\n"
    "\n" PY_EMIT "\n"
    "\n"
    "def hexs(s):\n"
    "    return s.encode(\"utf-8\", \"surrogatepass\").hex() or \"-\"\n"
    "\n"
    "\n"
    "def outer():\n"
    "    def middle():\n"
    "        x = [i\n"
    "             for i in range(3)]\n"
    "        return x\n"
    "    return middle\n"
    "\n"
    "\n"
    "class Outer:\n"
    "    class Inner:\n"
    "        def method(self, a,\n"
    "                   b):\n"
    "            if a:\n"
    "                return b\n"
    "            return (a +\n"
    "                    b)\n"
    "\n"
    "\n"
    "def café():\n"
    "    pass\n"
    "\n"
    "\n"
    "def 函数():\n"
    "    pass\n"
    "\n"
    "\n"
    "def 𠀀():\n"
    "    pass\n"
    "\n"
    "\n"
    "LONG = \"f\" * 700\n"
    "exec(f\"def {LONG}():\\n    return 1\\n\")\n"
    "\n"
    "codes = [outer.__code__, outer().__code__, Outer.Inner.method.__code__,\n"
    "         café.__code__, 函数.__code__, 𠀀.__code__, globals()[LONG].__code__,\n"
    "         (lambda: 0).__code__, compile(\"a = 1\\n\\n\\nb = 2\\n\", \"/tmp/x\\u00e9.py\", "
    "\"exec\")]\n"
    "emit(\"T\", id(type(outer.__code__)), id(str), id(bytes))\n"
    "for c in codes:\n"
    "    emit(\"C\", id(c), c.co_firstlineno, hexs(c.co_qualname), hexs(c.co_filename))\n"
    "\n"
    "\n"
    "def walk(c):\n"
    "    yield c\n"
    "    for k in c.co_consts:\n"
    "        if hasattr(k, \"co_lines\"):\n"
    "            yield from walk(k)\n"
    "\n"
    "\n"
    "count = 0\n"
    "tops = [c for c in codes]\n"
    "for f in sorted(glob.glob(\"/usr/lib/python3.11/*.py\"))[: int(sys.argv[1])]:\n"
    "    tops.append(compile(open(f, \"rb\").read(), f, \"exec\"))\n"
    "for top in tops:\n"
    "    for c in walk(top):\n"
    "        ranges = \" \".join(f\"{s}:{e}:{-1 if l is None else l}\" for s, e, l in "
    "c.co_lines())\n"
    "        emit(\"L\", c.co_firstlineno, c.co_linetable.hex() or \"-\", ranges or \"-\")\n"
    "        count += 1\n"
    "emit(\"E\", count)\n"
    "sys.stdout.flush()\n"
    "sys.stdin.read()\n";

/* ---- the live interpreter ------------------------------------------------- */

/* Hex text to bytes ("-" is empty); the length, or -1. */
static long unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strcmp(s, "-") == 0 ? 0 : strlen(s);
	if (n % 2 || n / 2 > cap || !enav_parse_hex_bytes(s, n, out, n / 2))
		return -1;
	return (long)(n / 2);
}

/* Every instruction of every range "start:end:line" (byte offsets, line -1
 * for none) decodes to that line, and the table ends with the last one. */
static unsigned check_table(int firstlineno, const uint8_t *tab, size_t n, char *ranges)
{
	unsigned units = 0;
	long last_end = 0;
	char *save = NULL;
	for (char *r = strtok_r(ranges, " ", &save); r; r = strtok_r(NULL, " ", &save)) {
		if (strcmp(r, "-") == 0)
			break;
		long start, end, want;
		assert_int_equal(sscanf(r, "%ld:%ld:%ld", &start, &end, &want), 3);
		for (long u = start / 2; u < end / 2; u++) {
			int got = -2;
			if (!enav_py_line_at(tab, n, firstlineno, (uint32_t)u, &got) || got != want)
				fail_msg(
				    "line table (first line %d): unit %ld is line %d, python says "
				    "%ld",
				    firstlineno, u, got, want);
			units++;
		}
		last_end = end;
	}
	int line;
	assert_false(enav_py_line_at(tab, n, firstlineno, (uint32_t)(last_end / 2), &line));
	return units;
}

static void test_live_python(void **state)
{
	(void)state;
	py_target_require();
	struct py_target t;
	py_target_start(&t, target_script, "60");
	struct enav_py_types types = {0};
	struct enav_py_code_layout layout;
	static uint8_t table[ENAV_PY_LINETABLE_MAX];
	static char line[1 << 20];
	unsigned codes = 0, tables = 0, units = 0;
	long expected = -1;
	while (fgets(line, sizeof(line), t.out)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'T') {
			assert_int_equal(
			    sscanf(line, "T %lu %lu %lu", &types.code, &types.str, &types.bytes),
			    3);
			struct enav_py_mem m = {enav_py_read_pid, &t.pid, 1 << 16};
			assert_int_equal(enav_py_code_layout_read(&m, &types, &layout), 0);
		} else if (line[0] == 'C') {
			uint64_t addr;
			int first;
			char qual_hex[4096], file_hex[4096];
			assert_int_equal(sscanf(line, "C %lu %d %4095s %4095s", &addr, &first,
						qual_hex, file_hex),
					 4);
			uint8_t qual[2048], file[2048];
			long nq = unhex(qual_hex, qual, sizeof(qual) - 1);
			long nf = unhex(file_hex, file, sizeof(file) - 1);
			assert_true(nq >= 0 && nf >= 0);
			/* A name over the cap is cut to it (these are whole characters). */
			if (nq > ENAV_PY_NAME_MAX - 1)
				nq = ENAV_PY_NAME_MAX - 1;
			qual[nq] = file[nf] = '\0';
			struct enav_py_code code = {.linetable = table};
			struct enav_py_mem m = {enav_py_read_pid, &t.pid, 1 << 18};
			assert_int_equal(enav_py_code_read(&m, &layout, addr, &code), 0);
			assert_string_equal(code.qualname, (char *)qual);
			assert_string_equal(code.filename, (char *)file);
			assert_int_equal(code.firstlineno, first);
			int l;
			assert_true(enav_py_line_at(code.linetable, code.linetable_len,
						    code.firstlineno, 0, &l));
			codes++;
		} else if (line[0] == 'L') {
			int first, off = 0;
			char *hex = line;
			assert_int_equal(sscanf(line, "L %d %n", &first, &off), 1);
			hex = line + off;
			char *sp = strchr(hex, ' ');
			assert_non_null(sp);
			*sp = '\0';
			long n = unhex(hex, table, sizeof(table));
			assert_true(n >= 0);
			units += check_table(first, table, (size_t)n, sp + 1);
			tables++;
		} else if (line[0] == 'E') {
			assert_int_equal(sscanf(line, "E %ld", &expected), 1);
			break;
		}
	}
	py_target_stop(&t);
	print_message("python3.11: %u code objects read, %u tables and %u instructions agree\n",
		      codes, tables, units);
	assert_int_equal(codes, 9);
	assert_int_equal((long)tables, expected);
	assert_true(tables > 1000);
}

/* ---- forged memory -------------------------------------------------------- */

/* A compact str at addr of type, kind and length with state bits. */
static void fake_str(uint64_t addr, uint64_t type, int64_t length, uint32_t state)
{
	put64(addr + 8, type);
	put64(addr + 16, (uint64_t)length);
	put32(addr + 32, state);
}

#define STR_TYPE    0x7000ull
#define ASCII_READY (1u << 2 | 1u << 5 | 1u << 6 | 1u << 7)

static void test_forged_strings(void **state)
{
	(void)state;
	struct enav_py_types types = {.code = 0x6000, .str = STR_TYPE, .bytes = 0x8000};
	char out[ENAV_PY_NAME_MAX];
	memset(fake, 0, sizeof(fake));

	/* A length of 2^62 reads no more than the output holds. */
	uint64_t s = FAKE_BASE + 0x100;
	fake_str(s, STR_TYPE, INT64_C(1) << 62, ASCII_READY);
	memset(fake + (s - FAKE_BASE) + 48, 'a', 1024);
	struct enav_py_mem m = {fake_read, NULL, 4096};
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), ENAV_PY_NAME_MAX - 1);
	assert_true(m.budget >= 4096 - 48 - ENAV_PY_NAME_MAX);

	/* The wrong type, a negative length, a non-compact str, kind 3. */
	fake_str(s, 0x1234, 3, ASCII_READY);
	m.budget = 4096;
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), -EPROTO);
	fake_str(s, STR_TYPE, -1, ASCII_READY);
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), -EPROTO);
	fake_str(s, STR_TYPE, 3, ASCII_READY & ~(1u << 5));
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), -EPROTO);
	fake_str(s, STR_TYPE, 3, 3u << 2 | 1u << 5 | 1u << 7);
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), -EPROTO);

	/* UCS-4 past U+10FFFF, a surrogate and a newline come out as '?'. */
	fake_str(s, STR_TYPE, 4, 4u << 2 | 1u << 5 | 1u << 7);
	uint32_t chars[4] = {0x110000, 0xd800, '\n', 0x20000};
	memcpy(fake + (s - FAKE_BASE) + 72, chars, sizeof(chars));
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), 7);
	assert_string_equal(out, "???\xf0\xa0\x80\x80");
	/* Cut at a character boundary: 3 bytes of room hold no 4-byte one. */
	assert_int_equal(enav_py_str_read(&m, &types, s, out, 7), 3);
	assert_string_equal(out, "???");

	/* Unreadable memory and an exhausted budget. */
	assert_int_equal(enav_py_str_read(&m, &types, 0x10, out, sizeof(out)), -EFAULT);
	m.budget = 40;
	assert_int_equal(enav_py_str_read(&m, &types, s, out, sizeof(out)), -E2BIG);
}

static void test_forged_code_type(void **state)
{
	(void)state;
	memset(fake, 0, sizeof(fake));
	uint64_t type = FAKE_BASE, name = FAKE_BASE + 0x400, members = FAKE_BASE + 0x800;
	struct enav_py_types types = {.code = type, .str = STR_TYPE, .bytes = 0x8000};
	struct enav_py_code_layout l;
	struct enav_py_mem m = {fake_read, NULL, 1 << 16};
	put64(type + 24, name);
	memcpy(fake + (name - FAKE_BASE), "code", 5);
	put64(type + 240, members);
	/* A member table that never ends reads at most 64 entries. */
	for (unsigned i = 0; i < 100 && 0x800 + (i + 1) * 40 <= sizeof(fake); i++)
		put64(members + i * 40, name);
	assert_int_equal(enav_py_code_layout_read(&m, &types, &l), -EPROTO);
	/* A type named otherwise is not the code type. */
	memcpy(fake + (name - FAKE_BASE), "coda", 5);
	m.budget = 1 << 16;
	assert_int_equal(enav_py_code_layout_read(&m, &types, &l), -EPROTO);
}

static void test_line_table_malformed(void **state)
{
	(void)state;
	int line = 0;
	/* An entry without its high bit. */
	static const uint8_t no_high[] = {0x01};
	assert_false(enav_py_line_at(no_high, sizeof(no_high), 1, 0, &line));
	/* A long-form entry whose varint never ends. */
	uint8_t endless[64];
	memset(endless, 0x7f, sizeof(endless));
	endless[0] = 0x80 | 14 << 3;
	assert_false(enav_py_line_at(endless, sizeof(endless), 1, 0, &line));
	/* Truncated: a one-line entry without its two column bytes. */
	static const uint8_t cut[] = {0x80 | 11 << 3, 0};
	assert_false(enav_py_line_at(cut, sizeof(cut), 1, 0, &line));
	/* Well formed: no-column entries of +2 (svarint 4) for 8 units, none for
	 * 1, then -1 (svarint 3) for 1. */
	static const uint8_t ok[] = {0x80 | 13 << 3 | 7, 4, 0x80 | 15 << 3, 0x80 | 13 << 3, 3};
	assert_true(enav_py_line_at(ok, sizeof(ok), 10, 7, &line));
	assert_int_equal(line, 12);
	assert_true(enav_py_line_at(ok, sizeof(ok), 10, 8, &line));
	assert_int_equal(line, -1);
	assert_true(enav_py_line_at(ok, sizeof(ok), 10, 9, &line));
	assert_int_equal(line, 11);
	assert_false(enav_py_line_at(ok, sizeof(ok), 10, 10, &line));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_live_python),
	    cmocka_unit_test(test_forged_strings),
	    cmocka_unit_test(test_forged_code_type),
	    cmocka_unit_test(test_line_table_malformed),
	};
	return cmocka_run_group_tests_name("py_code", tests, NULL, NULL);
}
