// Package fdguard keeps an fd open while calls use it, as Go's
// internal/poll reference count does for *os.File and net.Conn: a call
// that starts after Close began is refused, and Close waits for the calls
// that started before it, so no call ever reaches an fd number that was
// closed and reused. task/goio's files and sockets and task/fileio's
// files use it.
package fdguard
