// Package clip shortens the user's text that an error message quotes back. A message
// names the value at fault so the user can find it, but a 10,000-character CSV cell or
// flag value echoed whole buries the message; Quote and Text keep the first 64
// characters and say how long the whole was:
//
//	clip.Quote("abc")                       // "abc"
//	clip.Quote(strings.Repeat("x", 10000))  // "xxxx…x"… (10000 bytes), 64 x's quoted
//	clip.Text("1e999")                      // 1e999: numbers read best bare
//
// Every error that quotes input goes through one of them, so the rule is the same
// everywhere.
package clip
