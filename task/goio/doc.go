// Package goio gives ordinary goroutines io_uring-backed files and network
// connections that behave like os's and net's.
//
// It is the goroutine face of a task.Runtime: On(rt) returns the runtime's
// Env, whose methods make
//
//   - Listeners (Env.Listen: tcp, tcp4, tcp6, unix) that net/http serves
//     on unchanged, and Conns (Env.Dial, Listener.Accept) with
//     *net.TCPConn's method set: TCP_NODELAY on and keep-alive every 15 s,
//     as net's, real local and remote addresses, deadlines, half-close,
//     SyscallConn, and io.Copy through sendfile(2) and splice;
//   - PacketConns (Env.ListenPacket: udp, udp4, udp6, unixgram), a
//     net.PacketConn with *net.UDPConn's AddrPort methods;
//   - Files (Env.OpenFile) that behave like *os.File where they claim an
//     interface (io.ReaderAt, io.WriterAt, io.Reader, io.Writer, io.Seeker
//     with all three whences, io.ReaderFrom, io.WriterTo, http.File), so
//     http.ServeContent and http.FileServer serve them, and a directory of
//     them as an fs.FS (Env.DirFS: http.FileServer(http.FS(env.DirFS(dir))));
//     each call runs as a task on an executor. For files alone, package task/fileio is
//     faster and needs no runtime: its calls submit from the calling
//     goroutine, with no hop to an executor's thread;
//
// and blocking calls on raw fds (Env.Pread, Pwrite, Open, CloseFd, Fsync,
// Accept, Recv, Send, Statx) that run as a task on the runtime's next
// executor.
//
// Contract:
//   - Everything here is for ordinary goroutines; never call it from a
//     task. A blocking call made from a task of the runtime (any of its
//     executors: the call would hold that executor's thread) returns
//     task.ErrWouldDeadlock instead of waiting for itself: the Env calls,
//     Dial, File's calls, and Conn's waits with task.WithRingConnWaits.
//   - Waits: a Conn or PacketConn tries the socket from the calling
//     goroutine and waits for readiness in Go's netpoller, as net does
//     (measured faster under net/http than a hand-off to the executor's
//     thread); Accept and a TCP Dial's connect do the same. With
//     task.WithRingConnWaits each wait is an io_uring request awaited by
//     a task of the socket's executor instead (RECV, SEND, RECVMSG,
//     SENDMSG, POLL_ADD, ACCEPT, CONNECT, SPLICE). A File's reads and
//     writes are io_uring operations of its executor; File.ReadAt reads
//     what the page cache holds on the calling goroutine first
//     (preadv2 with RWF_NOWAIT).
//   - Errors are net's and os's: *net.OpError (os.ErrDeadlineExceeded for a
//     deadline, net.ErrClosed after Close, an *os.SyscallError for the
//     kernel's answer) and *os.PathError naming the file; a bad argument
//     is a *task.ArgError (errors.Is syscall.EINVAL) inside them; a method
//     called on a nil receiver returns one naming the receiver, never
//     panics. The raw-fd calls return task's errors (*task.OpError, the
//     context's error).
//   - Memory: a raw-fd call returns after its operation's completion, also
//     when ctx was cancelled (then with ctx's error), so its buffer is free
//     again when it returns; so do every Read, Write and ReadAt.
//   - Lifetime: what an Env makes belongs to one executor of the runtime.
//     Closing the runtime (or that executor) closes it: calls waiting on it
//     end with net.ErrClosed (os.ErrClosed, task.ErrClosed), and one made
//     while the runtime closes fails. Close of a Listener, Conn,
//     PacketConn or File interrupts its calls in flight and waits for them
//     before the fd is closed, so an fd number is never reused under a
//     call; File.Close, and a Listener's with task.WithRingConnWaits,
//     from a task of the runtime return task.ErrWouldDeadlock and leave
//     it open.
//   - io.Copy between Conns, Files and regular *os.Files (maybe behind an
//     *io.LimitedReader) moves no byte through user space: a regular file
//     into a Conn whose waits are the netpoller's is sendfile(2) from the
//     calling goroutine, as net's; the rest is IORING_OP_SPLICE through a
//     pipe (linked chains of them for a file into a Conn with ring waits).
//     A copy splice cannot do falls back to a buffer, as net's does.
//
// Off Linux the package builds with the same types and methods on Go's own
// net and os (each object registered with an executor, whose Close closes
// it); on macOS and the BSDs the raw-fd calls exist too (on the fallback
// backend's kqueue), Statx only on Linux, and Windows has none of them.
package goio
