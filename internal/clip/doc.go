// Package clip is the one sanitiser for the user's text that an error message quotes back.
// A message names the value at fault so the user can find it, but a 10,000-character CSV
// cell or an 8 MB tensor name echoed whole buries the message, and a name holding
// "\x1b[31m" or an OSC title sequence, echoed raw, drives the user's terminal. Quote and
// Text keep the first 64 characters, say how long the whole was, and escape what a
// terminal acts on (every control character, C0, DEL and C1, and every format character
// such as the bidirectional override U+202E), as strconv.Quote does:
//
//	clip.Quote("abc")                       // "abc"
//	clip.Quote(strings.Repeat("x", 10000))  // "xxxx…x"… (10000 bytes), 64 x's quoted
//	clip.Text("1e999")                      // 1e999: numbers read best bare
//	clip.Text("\x1b[31m")                   // "\x1b[31m": quoted when it needs an escape
//
// (Example runs these calls.)
//
// Every error that quotes input goes through one of them, so the rule is the same
// everywhere; either returns at most Bound bytes.
package clip
