package shell

import "strings"

// Quote makes w one word of a POSIX shell command line, as it is.
func Quote(w string) string {
	if w != "" && !strings.ContainsFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+@%", r))
	}) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Join quotes each word (Quote) and joins them with spaces. The first word, the
// command's name, is quoted too when it holds "=", which a shell would read as a variable
// assignment there.
func Join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
		if i == 0 && out[i] == w && strings.Contains(w, "=") {
			out[i] = "'" + w + "'"
		}
	}
	return strings.Join(out, " ")
}

// Arg is a path as an argument no program reads as an option: a relative path that
// begins with "-" gets "./" in front. Quote it still.
func Arg(path string) string {
	if strings.HasPrefix(path, "-") {
		return "./" + path
	}
	return path
}
