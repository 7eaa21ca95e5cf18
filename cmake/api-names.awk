# SPDX-License-Identifier: MIT
# api-names.awk - the functions a header declares PMAPS_API, one name a line,
# in the header's order: comments and preprocessor lines out, then each
# declaration (up to ';' or '{') that has PMAPS_API names the identifier
# before its first '('.
#   awk -f cmake/api-names.awk include/pmaps.h
# Used by the exports test (tests/install/exports.sh) and by the Debian
# symbols file's script (debian/symbols.sh).
{ text = text $0 "\n" }
END {
	while ((i = index(text, "/*")) > 0) {
		rest = substr(text, i + 2)
		j = index(rest, "*/")
		text = substr(text, 1, i - 1) " " (j ? substr(rest, j + 2) : "")
	}
	n = split(text, lines, "\n")
	code = ""; cont = 0
	for (k = 1; k <= n; k++) {
		l = lines[k]
		pp = cont || l ~ /^[ \t]*#/
		cont = pp && l ~ /\\$/
		if (!pp) {
			sub(/\/\/.*/, "", l)  # a // comment ends with its line
			code = code " " l
		}
	}
	m = split(code, decls, /[;{}]/)
	for (k = 1; k <= m; k++) {
		d = decls[k]
		if (d !~ /(^|[^A-Za-z0-9_])PMAPS_API[^A-Za-z0-9_]/)
			continue
		p = index(d, "(")
		if (!p)
			continue
		head = substr(d, 1, p - 1)
		sub(/[ \t]+$/, "", head)
		if (match(head, /[A-Za-z_][A-Za-z0-9_]*$/))
			print substr(head, RSTART, RLENGTH)
	}
}
