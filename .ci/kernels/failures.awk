# Reads one package's `go tool test2json` events and prints the output of each
# failing leaf test (a failed test none of whose subtests failed), at most
# `max` lines each (300 characters a line), under a "--- <pkg> <test>" header.
# Used by .ci/kernels.sh.
#   awk -v pkg=reg -v max=40 -f failures.awk reg.json
function unjson(s) {
	gsub(/\\\\/, "\001", s)
	gsub(/\\n/, "\n", s); gsub(/\\t/, "\t", s); gsub(/\\r/, "", s); gsub(/\\"/, "\"", s)
	gsub(/\\u003c/, "<", s); gsub(/\\u003e/, ">", s); gsub(/\\u0026/, "\\&", s)
	gsub(/\001/, "\\", s)
	sub(/\n$/, "", s)
	return s
}
{
	test = ""
	if (match($0, /"Test":"[^"]*"/)) test = substr($0, RSTART + 8, RLENGTH - 9)
	if (test == "") next
	if ($0 ~ /"Action":"fail"/) { failed[++nf] = test; next }
	if ($0 !~ /"Action":"output"/ || !match($0, /"Output":".*"/)) next
	line = unjson(substr($0, RSTART + 10, RLENGTH - 11))
	if (line ~ /^=== (RUN|PAUSE|CONT|NAME)/) next
	out[test] = out[test] line "\n"
}
END {
	for (i = 1; i <= nf; i++) {
		t = failed[i]; leaf = 1
		for (j = 1; j <= nf; j++) if (index(failed[j], t "/") == 1) leaf = 0
		if (!leaf) continue
		print "--- " pkg " " t
		n = split(out[t], l, "\n")
		if (n > 0 && l[n] == "") n--
		for (k = 1; k <= n && k <= max; k++) print "    " (length(l[k]) > 300 ? substr(l[k], 1, 300) " ..." : l[k])
		if (n > max) print "    ... (" n - max " more lines in tests.log)"
	}
}
