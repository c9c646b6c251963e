// Package shell quotes the commands the tool prints for people to run — a shard's
// "rerun it:" command, the merge to run next, a report's command line — so that pasted
// into a POSIX shell each word arrives as the one argument it was, whatever it holds:
// spaces, quotes, $(…), backticks, globs, newlines.
//
// Quote leaves a word of letters, digits and - _ . / = , : + @ % bare (nothing there is
// special to a shell) and puts any other in single quotes, inside which a shell expands
// nothing; a single quote inside ends the quoting, is written \' and the quoting
// resumes. Join quotes each word and joins them with spaces:
//
//	shell.Join([]string{"audit", "run", "--spec=my spec.json", "--out=$(rm -rf ~)"})
//	// audit run '--spec=my spec.json' '--out=$(rm -rf ~)'
//
// Quoting keeps a word one argument; it does not stop a program from reading an argument
// that begins with "-" as an option. Arg makes a path argument safe for that too: a
// relative path that begins with "-" is written "./-…".
package shell
