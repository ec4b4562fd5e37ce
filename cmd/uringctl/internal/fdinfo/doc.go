// Package fdinfo finds the io_uring instances of running processes and
// parses what the kernel prints about each in /proc/PID/fdinfo/FD.
//
// Parse is best-effort and never panics: truncated input, keys in any order
// and keys it does not know give a partial Info, unknown keys kept in
// Info.Unknown. Values that do not parse leave the field at its zero value
// and are kept in Unknown too.
//
// The kernel prints some parts only when it can take the ring's uring_lock
// with mutex_trylock: since Linux 6.15 (and the stable kernels that took the
// fix) it prints nothing of the ring without it, only the generic pos/flags/
// mnt_id/ino lines; before that it left out the registered file and buffer
// lists, the personalities and the SQPOLL thread. Parse records such gaps in
// Info.Unavailable, and Scan reads the file again a few times before it
// gives up and reports them.
//
// Scan reads /proc and is Linux-only; elsewhere it returns ErrUnsupported.
package fdinfo
