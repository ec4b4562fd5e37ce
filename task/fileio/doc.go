// Package fileio gives ordinary goroutines files on io_uring, called like
// os's: Open, OpenFile, Create, ReadFile and WriteFile need no set-up (the
// package starts its rings on first use, sized from GOMAXPROCS, as Go's
// netpoller needs none), and *File has *os.File's methods and meaning.
// FS(dir) is an fs.FS over them, rooted through os.Root (neither ".."
// nor a symbolic link leads out), that http.FileServer serves.
//
// How a read travels: File.ReadAt on a regular file first asks the page
// cache without waiting (preadv2 RWF_NOWAIT), as a raw system call that
// skips the Go scheduler's syscall hooks — it cannot sleep, and a cached
// 4 KiB read costs ≈ 15 % less than os's pread(2); what the cache cannot
// give goes to one of the package's rings (poll.Shared): the first that
// holds fewer than 16 operations, so that a few reads share one ring's
// batches rather than each waking a ring of its own. A goroutine alone on
// its ring submits and waits in one io_uring_enter, as pread(2) would, on
// its own thread; when many read at once, the ring's reaper goroutine
// submits their SQEs and reaps their CQEs in batches, and each goroutine
// is woken with its result (the reaper then yields its P to them, so
// that goroutines reading in a loop publish their next reads before its
// next enter, and need not wake it; with more than 32 reads in the
// kernel it reaps again at once instead). Reads of a file opened with
// O_DIRECT skip the cache probe. ReadAtBatch submits many reads in one
// enter. WriteAt of an O_DIRECT file goes through a ring the same way
// once more than 4 such writes are in flight on the Rings; fewer are
// plain pwrite(2) calls, as os's (through io_uring a direct write
// completes through the kernel's direct-I/O workqueue and then the
// submitter's task work, which loses to os's threads while few are in
// flight). A buffered WriteAt is a plain pwrite(2), as os's: the page
// cache takes it at once, and io_uring would hand one that must wait
// (O_DSYNC) to io-wq, which runs the writes to one file one at a time.
// Overlapping WriteAt calls on a file opened with O_DSYNC or O_SYNC are
// a group commit: each goes into the page cache through a second
// descriptor of the file without the flag and waits for an fdatasync
// (fsync for O_SYNC) that began after it, one flush for all the writes
// that came while the one before ran (a flush about to begin waits up to
// 50 µs for the writes already under way to join it); a lone write is
// the file's own synchronous pwrite. Either way WriteAt returns once its bytes are as
// durable as the flag promises.
//
// What stays os's: a file that Go's netpoller can wait on (a pipe, a FIFO,
// a character device, a socket) is read and written through *os.File, so
// deadlines (SetDeadline, SetReadDeadline, SetWriteDeadline) and Close
// while a read waits behave exactly as os's: the read returns an error
// wrapping os.ErrClosed. Read, Write and Seek (the file position), Stat,
// Sync, Truncate, ReadDir, ReadFrom and WriteTo (copy_file_range,
// sendfile, splice) are os's too: io_uring makes none of them faster.
//
// Lifecycle: Close waits for the file's ring operations in flight (reads
// and writes of regular files, which complete) and then closes the fd
// through os, so Close always releases it, also after the rings were
// closed. Calls after Close, and a second Close, return errors wrapping
// os.ErrClosed.
//
// Without io_uring (another OS, a kernel without it, io_uring_disabled,
// a seccomp filter) the same calls run on plain system calls through
// *os.File.
//
// Rings is the explicit form, for a program that sizes the rings itself
// (NewRings) or closes them (Rings.Close); the package-level functions use
// Default().
package fileio
