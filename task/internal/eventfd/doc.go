// Package eventfd creates the non-blocking eventfd an executor parks on
// through Go's netpoller (Linux only). It lives under internal/ because it
// makes a raw syscall (the project keeps x/sys/unix syscalls in sys and
// internal packages); poll has the same helper: both belong in sys as
// sys.Eventfd.
package eventfd
