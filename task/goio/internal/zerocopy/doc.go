// Package zerocopy is the pump under goio's io.Copy between Conns, Files
// and regular *os.Files: a pipe between the two halves of a splice, the
// loop that fills it from the source and drains it into the destination,
// and what tells a refused splice (copy another way) from a failed one.
// The halves themselves (SPLICE through a ring, sendfile(2), a wait in
// Go's netpoller) are goio's: they know the Conns and Files.
package zerocopy
