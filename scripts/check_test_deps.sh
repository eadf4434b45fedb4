#!/usr/bin/env bash
# Guard: every external command the test and benchmark scripts run must come
# from a package that `scripts/deps.sh test` installs (or from one that every
# Debian machine has).  A test that uses a command nothing installs passes on
# a developer's machine and fails on a fresh one (as `wrk` once did); this
# finds that before the tests run.
#
#   scripts/check_test_deps.sh        check; exit 1 listing every problem
#   scripts/check_test_deps.sh -v     also print each command, where it is
#                                     used and the package it comes from
#
# How:
#  1. A heuristic shell tokenizer (awk, below) reads tests/integration/*.sh,
#     tests/run.sh and bench/*.sh, and the project shell scripts they run by
#     path (bench/hook_floor.sh, packaging/deb/build.sh), and prints the words
#     in command position, plus the names given to `command -v NAME`-style
#     checks.  Functions the scripts define, bash keywords and builtins,
#     variables ("$ENAV"), project paths (build/..., tests/...) and what the
#     project's own .deb installs (/usr/sbin/enav) are no package's commands.
#  2. The packages: scripts/deps.sh --list test, closed over Depends and
#     Pre-Depends (deps.sh installs with --no-install-recommends, so
#     Recommends do not count), plus every Essential or Priority: required
#     package (present on every Debian machine) and their dependencies.
#  3. Each command: every match on the PATH and in the system directories,
#     and for an alternatives link (cc, awk) every alternative -> dpkg -S on
#     those paths, their real paths and their /usr-merge twins (/bin <->
#     /usr/bin).  Some owner must be in that closure.
set -euo pipefail
cd "$(dirname "$0")/.."

VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1

FILES=(tests/integration/*.sh tests/integration/hostile/*.sh tests/run.sh tests/fuzz/limits.sh bench/*.sh)
# Functions defined in these are callable from every script (they are sourced:
# the hostile-tenant runner by its case files, the fuzz limits by tests/run.sh).
LIBS="tests/integration/lib.sh bench/lib.sh tests/integration/test_hostile_tenant.sh tests/fuzz/limits.sh"

# ---- 1. the commands the scripts run ----------------------------------------
# The tokenizer walks each file character by character with a stack of
# lexical contexts, so that a word is judged where bash would judge it:
#   C  a command list (the file, $( ), ( ), `...`, <( )); K a case statement
#      (its patterns are skipped); Q inside [[ ]]; Y an array literal ( );
#   D  "double quotes"; R ${parameter}; A $(( arithmetic )) and (( )).
# Single quotes, comments and heredoc bodies are skipped whole: they hold
# awk, jq, SQL, Python and configuration text, not commands.
# Output: one line per use, "cmd<TAB>NAME<TAB>FILE:LINE", and for each
# project script run by path (bench/campaign.sh) "run<TAB>PATH<TAB>FILE:LINE".
read -r -d '' TOKENIZER <<'AWK' || true
BEGIN {
	nb = split(builtins, t, " ")
	for (k = 1; k <= nb; k++) isbuiltin[t[k]] = 1
	# Keywords after which the next word is still a command.
	nk = split("if then elif else do while until ! {", t, " ")
	for (k = 1; k <= nk; k++) keeppos[t[k]] = 1
	# Keywords that end a compound command: only operators may follow.
	nk = split("} fi done esac ]]", t, " ")
	for (k = 1; k <= nk; k++) endkw[t[k]] = 1
	# Commands that run another command: the options of theirs that take a
	# separate argument (so that argument is not taken for the command) and
	# how many positional words come before the command (timeout's duration).
	wrapopts["timeout"] = " -s --signal -k --kill-after "; wrapextra["timeout"] = 1
	wrapopts["env"] = " -u --unset -C --chdir "
	wrapopts["nice"] = " -n --adjustment "
	wrapopts["ionice"] = " -c --class -n --classdata "
	wrapopts["taskset"] = " "; wrapextra["taskset"] = 1
	wrapopts["chrt"] = " "; wrapextra["chrt"] = 1
	wrapopts["stdbuf"] = " -i --input -o --output -e --error "
	wrapopts["nohup"] = " "
	wrapopts["xargs"] = " -a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars "
	wrapopts["setpriv"] = " --ruid --euid --reuid --rgid --egid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile "
	wrapopts["runuser"] = " -u --user -g --group -G --supp-group -s --shell -w --whitelist-environment "
	wrapopts["sudo"] = " -u --user -g --group -C -D -h -p -r -t -U "
	# Builtins and keywords that run the command after them.
	wrapopts["exec"] = " -a "
	wrapopts["command"] = " "
	wrapopts["builtin"] = " "
	wrapopts["time"] = " "
	# Checks whose arguments name commands: `command -v X`, `type -P X`,
	# `hash X`, `which X`, or a `need X` helper.
	nk = split("hash which need needs need_cmd require_cmd require_command", t, " ")
	for (k = 1; k <= nk; k++) checker[t[k]] = 1
	nk = split(libs, t, " ")
	for (k = 1; k <= nk; k++) islib[t[k]] = 1

	for (a = 1; a < ARGC; a++) lex_file(ARGV[a])

	for (e = 1; e <= ne; e++) {
		if (ekind[e] == "cmd" && (globalfunc[ename[e]] || (efile[e] SUBSEP ename[e]) in filefunc)) continue
		print ekind[e] "\t" ename[e] "\t" efile[e] ":" eline[e]
	}
	exit 0
}

function lex_file(f,    line) {
	file = f; src = ""; nl = 0
	while ((getline line < f) > 0) {
		nl++; lstart[nl] = length(src) + 1
		src = src line "\n"
	}
	close(f)
	n = length(src); i = 1; d = 0; nhd = 0
	push("C", "")
	while (i <= n) step()
}

# ---- the context stack ----
function push(type, endc) {
	d++; ty[d] = type; pend[d] = endc; par[d] = 0; pat[d] = 0; popset[d] = 0
	inw[d] = 0; wbuf[d] = ""; wexp[d] = 0; wq[d] = 0; fdef[d] = 0
	pos[d] = (type == "C" || type == "K"); reset(d)
	# The word a D, R or A context belongs to is its command list's.
	own[d] = (type == "D" || type == "R" || type == "A") ? own[d - 1] : d
}
function pop(   ps) {
	ps = popset[d]; d--
	if (d < 1) { d = 1; return }
	if (ps) pos[d] = 0
}
function reset(l) { wm[l] = ""; cmode[l] = ""; wskip[l] = 0; wdd[l] = 0; wextra[l] = 0; wuser[l] = 0; redir[l] = 0 }

function step(   c) {
	c = substr(src, i, 1)
	if (ty[d] == "D") return step_dq(c)
	if (ty[d] == "R") return step_param(c)
	if (ty[d] == "A") return step_arith(c)
	if (ty[d] == "K" && pat[d]) return step_pattern(c)
	step_cmd(c)
}

# ---- command lists ----
function step_cmd(c,   j, nc) {
	if (c == " " || c == "\t") { endword(); i++; return }
	if (c == "\n") {
		endword(); i++
		if (nhd) skip_heredocs()
		if (ty[d] == "C" || ty[d] == "K") separator()
		return
	}
	if (c == "#" && !inw[d]) { j = index(substr(src, i), "\n"); i = j ? i + j - 1 : n + 1; return }
	if (c == "\\") {
		nc = substr(src, i + 1, 1)
		if (nc != "\n") { addch(nc); wq[d] = 1 }
		i += 2; return
	}
	if (c == "'") {
		j = index(substr(src, i + 1), "'")
		if (!j) { i = n + 1; return }
		addch(substr(src, i + 1, j - 1)); wq[d] = 1; i += j + 1; return
	}
	if (c == "\"") { inw[d] = 1; wq[d] = 1; push("D", ""); i++; return }
	if (c == "`") {
		if (ty[d] == "C" && pend[d] == "`") { endword(); pop(); i++; return }
		markexp(); push("C", "`"); i++; return
	}
	if (c == "$") return dollar(1)
	if (c == "|" || c == "&" || c == ";") return operator()
	if (c == "<" || c == ">") return redirect()
	if (c == "(") return paren_open()
	if (c == ")") return paren_close()
	addch(c); i++
}

function addch(s) { wbuf[d] = wbuf[d] s; inw[d] = 1 }
# The current word contains an expansion: whatever it names is not literal.
function markexp(   o) { o = own[d]; inw[o] = 1; wexp[o] = 1; wbuf[o] = wbuf[o] "$" }

# $( ), $(( )), ${ }, $'...' or a plain $name.
function dollar(ansi,   nc, j, ch) {
	nc = substr(src, i + 1, 1)
	if (nc == "(") {
		markexp()
		if (substr(src, i + 2, 1) == "(") { push("A", ""); i += 3 } else { push("C", ")"); i += 2 }
		return
	}
	if (nc == "{") { markexp(); push("R", ""); i += 2; return }
	if (ansi && nc == "'") {
		for (j = i + 2; j <= n; j++) {
			ch = substr(src, j, 1)
			if (ch == "\\") { j++; continue }
			if (ch == "'") break
		}
		inw[own[d]] = 1; wq[own[d]] = 1; i = j + 1; return
	}
	markexp(); i++
}

function operator(   c2) {
	endword()
	if (ty[d] == "Q" || ty[d] == "Y") { i++; return }	# && || inside [[ ]]
	c2 = substr(src, i, 2)
	if (substr(src, i, 3) == ";;&") { i += 3; return casesep() }
	if (c2 == ";;" || c2 == ";&") { i += 2; return casesep() }
	if (c2 == "&>") { i += 2; if (substr(src, i, 1) == ">") i++; redir[d] = 1; return }
	i += (c2 == "&&" || c2 == "||" || c2 == "|&") ? 2 : 1
	separator()
}
function separator() { pos[d] = 1; reset(d) }
function casesep() { if (ty[d] == "K") { pat[d] = 1; reset(d) } else separator() }

function redirect(   c2, dash, dl, ch, q, j) {
	# A number right before < or > is a file descriptor, not a word.
	if (inw[d] && !wq[d] && !wexp[d] && wbuf[d] ~ /^[0-9]+$/) { inw[d] = 0; wbuf[d] = "" }
	else endword()
	if (ty[d] == "Q") { i++; return }	# string comparison inside [[ ]]
	c2 = substr(src, i, 2)
	if (c2 == "<(" || c2 == ">(") { markexp(); push("C", ")"); i += 2; return }
	if (substr(src, i, 3) == "<<<") { i += 3; redir[d] = 1; return }
	if (c2 == "<<") {
		# A heredoc: remember its delimiter; the body is skipped from the
		# end of this line.
		i += 2; dash = 0
		if (substr(src, i, 1) == "-") { dash = 1; i++ }
		while (substr(src, i, 1) == " " || substr(src, i, 1) == "\t") i++
		dl = ""
		while (i <= n) {
			ch = substr(src, i, 1)
			if (ch ~ /[ \t\n;|&<>()]/) break
			if (ch == "'" || ch == "\"") {
				j = index(substr(src, i + 1), ch)
				dl = dl substr(src, i + 1, j - 1); i += j + 1; continue
			}
			if (ch == "\\") { i++; ch = substr(src, i, 1) }
			dl = dl ch; i++
		}
		nhd++; hdl[nhd] = dl; hdd[nhd] = dash
		return
	}
	if (c2 == ">>" || c2 == ">&" || c2 == "<&" || c2 == "<>" || c2 == ">|") i += 2; else i++
	redir[d] = 1
}

# Skips the bodies of the heredocs started on the line just ended.
function skip_heredocs(   k, L, s) {
	L = line_of(i)
	for (k = 1; k <= nhd; k++) {
		for (; L <= nl; L++) {
			s = substr(src, lstart[L], (L < nl ? lstart[L + 1] : n + 1) - lstart[L] - 1)
			if (hdd[k]) sub(/^\t+/, "", s)
			if (s == hdl[k]) { L++; break }
		}
	}
	i = L <= nl ? lstart[L] : n + 1
	nhd = 0
}

function paren_open(   j) {
	if (ty[d] == "Q" || ty[d] == "Y") { i++; return }	# grouping in [[ ]]
	# NAME=( or NAME+=( starts an array literal.
	if (inw[d] && !wexp[d] && wbuf[d] ~ /^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=$/) {
		endword(); push("Y", ")"); i++; return
	}
	endword()
	if (fdef[d]) {	# the () of a function definition
		fdef[d] = 0; j = index(substr(src, i), ")"); i = j ? i + j : n + 1; return
	}
	if (substr(src, i + 1, 1) == "(" && (pos[d] || cmode[d] == "for")) {
		push("A", ""); popset[d] = 1; i += 2; return	# (( arithmetic ))
	}
	push("C", ")"); popset[d] = 1; i++	# ( subshell )
}
function paren_close() {
	endword()
	if (ty[d] == "Q") { i++; return }
	if ((ty[d] == "C" && pend[d] == ")") || ty[d] == "Y") { pop(); i++; return }
	i++
}

# ---- words ----
function endword(   w, e, q) {
	if (!inw[d]) return
	w = wbuf[d]; e = wexp[d]; q = wq[d]
	inw[d] = 0; wbuf[d] = ""; wexp[d] = 0; wq[d] = 0
	if (ty[d] == "Q") { if (w == "]]" && !q) { d--; pos[d] = 0 } return }
	if (ty[d] == "Y") return
	if (redir[d]) { redir[d] = 0; return }	# a redirection's target
	if (pos[d]) cmdword(w, e, q); else argword(w, e, q)
}

# A word after the command name.
function argword(w, e, q) {
	if (cmode[d] == "check") { if (!e && w !~ /^-/) emit(w, "cmd"); return }
	if (cmode[d] == "find") {
		if (!q && (w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir")) pos[d] = 1
		return
	}
	if (cmode[d] == "case" && !q && w == "in") { cmode[d] = ""; push("K", ""); pat[d] = 1 }
}

# A word in command position.
function cmdword(w, e, q) {
	if (cmode[d] == "funcname") { cmode[d] = ""; if (!e) deffunc(w); return }
	if (cmode[d] == "coprocname") { cmode[d] = ""; return }
	# VAR=value before a command (or alone) leaves the position to the next word.
	if (w ~ /^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=/) return
	if (wm[d] != "" && wrapword(w)) return
	if (e) { pos[d] = 0; return }	# "$ENAV", $HELPERS/x: a variable, not a package's
	if (!q) {
		if (w == "[[") { push("Q", ""); return }
		if (w == "case") { pos[d] = 0; cmode[d] = "case"; return }
		if (w == "for" || w == "select") { pos[d] = 0; cmode[d] = "for"; return }
		if (w == "function") { cmode[d] = "funcname"; return }
		if (w == "coproc") {
			if (substr(src, i, 80) ~ /^[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+[{(]/) cmode[d] = "coprocname"
			return
		}
		if (w == "esac" && ty[d] == "K") { d--; pos[d] = 0; return }
		if (w in keeppos) return
		if (w in endkw) { pos[d] = 0; return }
	}
	# name() { ... }: a definition, not a call.
	if (substr(src, i, 40) ~ /^[ \t]*\([ \t]*\)/) { deffunc(w); fdef[d] = 1; return }
	if (w in wrapopts) {
		if (!isbuiltin[w]) emit(w, "cmd")
		wm[d] = w; wextra[d] = wrapextra[w]; wskip[d] = 0; wdd[d] = 0; wuser[d] = 0
		return
	}
	pos[d] = 0
	if (w in checker) cmode[d] = "check"
	if (w == "type") cmode[d] = "check"	# type -P NAME
	if (isbuiltin[w]) return
	if (w ~ /^-/ || w == "") return
	# A project path (build/enav, ./x, tests/...) is built or shipped here;
	# it is reported so that the shell scripts among them are read too.
	if (index(w, "/") && substr(w, 1, 1) != "/") { sub(/^(\.\/)+/, "", w); emit(w, "run"); return }
	emit(w, "cmd")
	if (w == "find") cmode[d] = "find"
}

# A word after a wrapper (timeout, setpriv, runuser, exec ...): 1 when it is
# one of the wrapper's own options or arguments, 0 when it is the command.
function wrapword(w,   W) {
	W = wm[d]
	if (wskip[d]) { wskip[d] = 0; return 1 }
	if (!wdd[d] && w == "--") { wdd[d] = 1; return 1 }
	if (!wdd[d] && w ~ /^-./) {
		if (W == "command" && w ~ /^-[a-zA-Z]*[vV]/) { wm[d] = ""; pos[d] = 0; cmode[d] = "check"; return 1 }
		if (W == "runuser" && (w == "-u" || w ~ /^--user/)) wuser[d] = 1
		if (index(wrapopts[W], " " w " ")) wskip[d] = 1
		return 1
	}
	if (wextra[d] > 0) { wextra[d]--; return 1 }
	# `runuser USER -c STRING` (no -u): a login shell runs the string.
	if (W == "runuser" && !wuser[d]) { wm[d] = ""; pos[d] = 0; return 1 }
	wm[d] = ""
	return 0
}

function deffunc(w) {
	filefunc[file SUBSEP w] = 1
	if (file in islib) globalfunc[w] = 1
}
function emit(w, kind) { ne++; ename[ne] = w; ekind[ne] = kind; efile[ne] = file; eline[ne] = line_of(i) }
function line_of(p,   lo, hi, mid) {
	lo = 1; hi = nl
	while (lo < hi) { mid = int((lo + hi + 1) / 2); if (lstart[mid] <= p) lo = mid; else hi = mid - 1 }
	return lo
}

# ---- case patterns: skipped up to the ), or the esac ----
function step_pattern(c,   j, p) {
	if (c == " " || c == "\t" || c == "\n") { i++; return }
	p = i > 1 ? substr(src, i - 1, 1) : "\n"
	if (c == "#" && p ~ /[ \t\n]/) { j = index(substr(src, i), "\n"); i = j ? i + j - 1 : n + 1; return }
	if (substr(src, i, 4) == "esac" && p ~ /[ \t\n;]/ && substr(src, i + 4, 1) ~ /^([ \t\n;)|&]|)$/) {
		i += 4; d--; pos[d] = 0; return
	}
	if (c == "\\") { i += 2; return }
	if (c == "'" || c == "\"") { j = index(substr(src, i + 1), c); i = j ? i + j + 1 : n + 1; return }
	if (c == ")") { pat[d] = 0; pos[d] = 1; reset(d); i++; return }
	i++
}

# ---- "double quotes": literal text, except $ and ` ----
function step_dq(c,   o) {
	o = own[d]
	if (c == "\"") { d--; i++; return }
	if (c == "\\") { wbuf[o] = wbuf[o] substr(src, i + 1, 1); i += 2; return }
	if (c == "$") return dollar(0)
	if (c == "`") { markexp(); push("C", "`"); i++; return }
	if (match(substr(src, i, 200), /^[^"\\$`]+/)) { wbuf[o] = wbuf[o] substr(src, i, RLENGTH); i += RLENGTH; return }
	i++
}

# ---- ${parameter...} ----
function step_param(c,   j) {
	if (c == "}") { d--; i++; return }
	if (c == "\\") { i += 2; return }
	if (c == "'") { j = index(substr(src, i + 1), "'"); i = j ? i + j + 1 : n + 1; return }
	if (c == "\"") { push("D", ""); i++; return }
	if (c == "$") return dollar(1)
	if (c == "`") { push("C", "`"); i++; return }
	i++
}

# ---- $(( arithmetic )) and (( )) ----
function step_arith(c) {
	if (c == "(") { par[d]++; i++; return }
	if (c == ")") {
		if (par[d] > 0) { par[d]--; i++; return }
		i += (substr(src, i + 1, 1) == ")") ? 2 : 1
		pop(); return
	}
	if (c == "$") return dollar(0)
	if (c == "`") { push("C", "`"); i++; return }
	if (c == "\"") { push("D", ""); i++; return }
	i++
}
AWK

builtins="$(compgen -b | tr '\n' ' ') $(compgen -k | tr '\n' ' ')"
tokenize() { awk -v builtins="$builtins" -v libs="$LIBS" "$TOKENIZER" "$@"; }

# A project shell script the scanned ones run by path (bench/campaign.sh from
# test_bench_campaign.sh, packaging/deb/build.sh from test_packaging.sh) is
# read too: its commands are the test's.
is_shell_script() {
	[ -f "$1" ] && head -n1 -- "$1" | grep -Eq '^#!.*[/ ](ba)?sh( |$)'
}
declare -A scanned=() callers=()
uses=""
todo=("${FILES[@]}")
while [ ${#todo[@]} -gt 0 ]; do
	for f in "${todo[@]}"; do scanned[$f]=1; done
	out=$(tokenize "${todo[@]}")
	uses+=$out$'\n'
	todo=()
	while IFS=$'\t' read -r kind path loc; do
		[ "$kind" = run ] || continue
		case " ${callers[$path]:-} " in *" ${loc%:*} "*) ;; *) callers[$path]+=" ${loc%:*}" ;; esac
		if [ -z "${scanned[$path]:-}" ] && is_shell_script "$path"; then
			scanned[$path]=1
			todo+=("$path")
		fi
	done <<<"$out"
done

# Every script that runs FILE, directly or through others.
run_by() {
	local seen=" $1 " queue=("$1") f c
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		for c in ${callers[$f]:-}; do
			case $seen in *" $c "*) continue ;; esac
			seen+="$c "
			queue+=("$c")
			echo "$c"
		done
	done
}

# Programs the project's own package installs (packaging/deb/build.sh copies
# them to "$PKG/usr/sbin/enav" ...): test_packaging.sh installs that .deb and
# runs them, so no dependency provides them.
declare -A own_path=()
# shellcheck disable=SC2016 # the literal text $PKG is searched for
while read -r p; do own_path[$p]=1; done < <(grep -o '"\$PKG/[^"]*"' packaging/deb/build.sh | sed 's/^"\$PKG//; s/"$//')

# NAME -> the files that use it, in order of first use.
declare -A where=()
names=()
while IFS=$'\t' read -r kind name loc; do
	[ "$kind" = cmd ] || continue
	[ -z "${own_path[$name]:-}" ] || continue
	f=${loc%:*}
	if [ -z "${where[$name]:-}" ]; then
		names+=("$name")
		where[$name]=$f
	else
		case ", ${where[$name]}, " in
		*", $f, "*) ;;
		*) where[$name]+=", $f" ;;
		esac
	fi
done <<<"$uses"

# ---- 2. the packages a fresh machine has after `scripts/deps.sh test` --------
mapfile -t wanted < <(scripts/deps.sh --list test)
# Installed packages with their dependencies; the closure starts from the
# listed packages and from every Essential or Priority: required one.  Of the
# alternatives of a dependency (a | b) the first one installed here counts; a
# virtual package counts through the installed packages that provide it.
declare -A have=()
while read -r p; do have[$p]=1; done < <(
	dpkg-query -W -f='${db:Status-Status}\t${Package}\t${Essential}\t${Priority}\t${Provides}\t${Pre-Depends}, ${Depends}\n' |
		awk -F'\t' -v roots="${wanted[*]}" '
		function bare(s) { sub(/^[ \t]+/, "", s); sub(/[ \t(].*$/, "", s); sub(/:.*$/, "", s); return s }
		# Files on disk: "installed", or mid-way through an apt run that
		# may be going on meanwhile (half-configured, triggers-pending ...).
		$1 != "not-installed" && $1 != "config-files" {
			inst[$2] = 1; deps[$2] = deps[$2] "," $6
			if ($3 == "yes" || $4 == "required") queue[++nq] = $2
			np = split($5, pv, ",")
			for (k = 1; k <= np; k++) if (bare(pv[k]) != "") prov[bare(pv[k])] = prov[bare(pv[k])] " " $2
		}
		END {
			nr = split(roots, r, " ")
			for (k = 1; k <= nr; k++) queue[++nq] = r[k]
			for (h = 1; h <= nq; h++) {
				p = queue[h]
				if (p in seen) continue
				seen[p] = 1; print p
				nc = split(deps[p], cl, ",")
				for (c = 1; c <= nc; c++) {
					na = split(cl[c], alt, "|")
					for (a = 1; a <= na; a++) {
						q = bare(alt[a])
						if (q == "") continue
						if (q in inst) { queue[++nq] = q; break }
						if (q in prov) { np = split(prov[q], pp, " "); for (k = 1; k <= np; k++) queue[++nq] = pp[k]; break }
					}
				}
			}
		}')

# ---- 3. which package each command comes from -------------------------------
# Every program NAME could be: each match on the PATH and in the system
# directories (a pyenv shim or /usr/local copy that shadows a packaged one
# does not hide it; one with no packaged twin does not pass).  Sets LOC.
locate() {
	local dir seen=" " IFS=:
	LOC=()
	if [ "${1#*/}" != "$1" ]; then
		[ -x "$1" ] && LOC=("$1")
		return 0
	fi
	for dir in $PATH /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		case $seen in *" $dir "*) continue ;; esac
		seen+="$dir "
		if [ -n "$dir" ] && [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then LOC+=("$dir/$1"); fi
	done
	return 0
}
# An alternatives link (cc -> /etc/alternatives/cc -> gcc here) stands for
# every alternative: on a machine with only clang, cc is clang.  Prints them.
alternatives_of() {
	local p=$1 t
	while [ -L "$p" ]; do
		t=$(readlink -- "$p")
		[ "${t#/}" != "$t" ] || t=${p%/*}/$t
		if [ "${t#/etc/alternatives/}" != "$t" ]; then
			update-alternatives --list "${t#/etc/alternatives/}" 2>/dev/null || true
			return 0
		fi
		p=$t
	done
}

declare -A found=() locs=() real=() owners=()
paths=()
for name in "${names[@]}"; do
	locate "$name"
	[ ${#LOC[@]} -gt 0 ] || continue
	found[$name]=${LOC[0]}
	for p in "${LOC[@]}"; do
		if [ -L "$p" ]; then mapfile -t -O "${#LOC[@]}" LOC < <(alternatives_of "$p"); fi
	done
	locs[$name]=$(printf '%s\n' "${LOC[@]}")
	paths+=("${LOC[@]}")
done
# Real paths (through symlinks such as /usr/bin/go -> ../lib/go-1.19/bin/go)
# in one call; -m prints a line for every argument, so the lines pair up.
if [ ${#paths[@]} -gt 0 ]; then
	mapfile -t rp < <(realpath -m -- "${paths[@]}")
	for k in "${!paths[@]}"; do real[${paths[k]}]=${rp[k]}; done
fi
# The paths dpkg may know a program by: itself, its real path, and the
# /usr-merge twins of both (dpkg knows /bin/sleep, PATH finds /usr/bin/sleep).
declare -A cands=()
all=()
for name in "${!locs[@]}"; do
	c=()
	while read -r p; do
		for q in "$p" "${real[$p]}"; do
			c+=("$q")
			case $q in
			/usr/bin/* | /usr/sbin/* | /usr/lib/*) c+=("${q#/usr}") ;;
			/bin/* | /sbin/* | /lib/*) c+=("/usr$q") ;;
			esac
		done
	done <<<"${locs[$name]}"
	cands[$name]=$(printf '%s\n' "${c[@]}")
	all+=("${c[@]}")
done
# One dpkg -S for every path: it reads the whole file database each time.
# Lines are "pkg[:arch][, pkg...]: /path"; paths it does not know it reports
# on stderr.
if [ ${#all[@]} -gt 0 ]; then
	while IFS= read -r line; do
		case $line in "diversion by "*) continue ;; esac
		path=/${line#*: /}
		who=${line%%: /*}
		for pk in ${who//,/ }; do owners[$path]+=" ${pk%%:*}"; done
	done < <(printf '%s\n' "${all[@]}" | sort -u | xargs -d '\n' dpkg-query -S 2>/dev/null || true)
fi

problems=0
for name in "${names[@]}"; do
	files=${where[$name]}
	# The tests that run these files (bench/campaign.sh is a test's too).
	by=$(for f in ${files//,/ }; do run_by "$f"; done | awk -v l=", $files, " '!index(l, ", " $0 ", ") && !s[$0]++' | paste -sd, - | sed 's/,/, /g')
	[ -z "$by" ] || files+="; run by $by"
	if [ -z "${found[$name]:-}" ]; then
		echo "deps: '$name' ($files) is not installed: no package scripts/deps.sh test installs it" >&2
		problems=$((problems + 1))
		continue
	fi
	who=""
	while read -r c; do who+=${owners[$c]:-}; done <<<"${cands[$name]}"
	read -ra pkgs <<<"$who"
	ok=""
	for pk in "${pkgs[@]}"; do
		if [ -n "${have[$pk]:-}" ]; then ok=$pk; break; fi
	done
	if [ -n "$ok" ]; then
		[ $VERBOSE -eq 0 ] || printf '%-26s %-28s %s\n' "$name" "$ok" "$files"
	elif [ ${#pkgs[@]} -eq 0 ]; then
		echo "deps: '$name' ($files) is ${found[$name]}, owned by no package" >&2
		problems=$((problems + 1))
	else
		echo "deps: '$name' ($files) comes from no package scripts/deps.sh test installs (here it comes from $(printf '%s\n' "${pkgs[@]}" | sort -u | paste -sd' '))" >&2
		problems=$((problems + 1))
	fi
done

if [ $problems -gt 0 ]; then
	echo "deps: $problems of ${#names[@]} commands used by the tests are not installed by scripts/deps.sh test: add their packages to test_pkgs" >&2
	exit 1
fi
echo "deps: ${#names[@]} commands in ${#scanned[@]} files, each from a package scripts/deps.sh test installs (or every Debian machine has)"
