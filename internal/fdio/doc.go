// Package fdio has the few system calls the library makes that are not
// io_uring's (package sys has those): an eventfd for the completion loops'
// parks and wakeups, and the non-blocking tries (recv and send with
// MSG_DONTWAIT, preadv2 with RWF_NOWAIT) that the task layer and package
// goio make before they queue a ring request or wait. They return bare unix.Errno values, so the
// EAGAIN path allocates nothing.
package fdio
