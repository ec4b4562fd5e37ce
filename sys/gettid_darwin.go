package sys

import "golang.org/x/sys/unix"

// Gettid returns the calling thread's id (thread_selfid(2)): the task
// layer tells its executor's locked thread from others with it.
func Gettid() int {
	id, _, _ := unix.RawSyscall(unix.SYS_THREAD_SELFID, 0, 0, 0)
	return int(id)
}
