package iop

import (
	"net/netip"
	"time"

	"github.com/pure-uring/uring/sys"
)

// Code is the kind of an operation: one per kind of await.
type Code uint8

// The codes, with the fields of Op each one reads. Fd is the fd an error
// names; "out" is what the Waiter gets besides Res.
const (
	Nop        Code = iota + 1 //
	Read                       // Fd (a registered file's slot with Fixed), Buf, Off
	ReadCached                 // as Read; io_uring may serve it from the page cache first
	Write                      // as Read
	ReadFixed                  // Fd, Buf, Off, BufIndex (a registered buffer)
	WriteFixed                 // as ReadFixed
	Readv                      // Fd, Bufs, Off
	Writev                     // Fd, Bufs, Off
	Openat                     // Fd (dirfd), Path, Flags, Mode; Res is the new fd
	Close                      // Fd; never checked against the context, never given a deadline
	Statx                      // Fd (dirfd), Path, Flags, Mode (the mask), Stat
	Fsync                      // Fd, Flags
	Fallocate                  // Fd, Mode, Off, Len
	Unlinkat                   // Fd (dirfd), Path, Flags
	Mkdirat                    // Fd (dirfd), Path, Mode
	Renameat                   // Fd (olddirfd), Path, Fd2 (newdirfd), Path2, Flags
	Splice                     // Fd2 (in) at Off2 to Fd (out) at Off, Len bytes, Flags (offsets -1 for pipes)
	Poll                       // Fd, Events; Res is the ready events
	Sleep                      // Dur; never given a deadline
	Socket                     // Fd2 (domain), Flags (type), Mode (protocol); Fd is -1; Res is the new fd
	Connect                    // Fd, Addr
	Accept                     // Fd, Flags; Res is the new fd; out: Peer
	Recv                       // Fd, Buf, Flags
	Send                       // Fd, Buf, Flags
	SendZC                     // Fd, Buf, Flags
	Sendmsg                    // Fd, Bufs, OOB, Addr (when valid), Flags
	Recvmsg                    // Fd, Bufs, OOB, Flags; out: OOBN, RecvFlags, Peer
	Shutdown                   // Fd, Flags (how)
	Raw                        // in a Link: Prep (a raw SQE of T.Await: see RawSQEs)
	Link                       // Links (each a Nop, Read, Write, Fsync, Sleep or Raw), Results
	NumCodes
)

var names = [NumCodes]struct{ fn, op string }{
	Nop:        {"Nop", "nop"},
	Read:       {"Read", "read"},
	ReadCached: {"ReadCached", "read"},
	Write:      {"Write", "write"},
	ReadFixed:  {"ReadFixed", "read_fixed"},
	WriteFixed: {"WriteFixed", "write_fixed"},
	Readv:      {"Readv", "readv"},
	Writev:     {"Writev", "writev"},
	Openat:     {"Openat", "openat"},
	Close:      {"Close", "close"},
	Statx:      {"Statx", "statx"},
	Fsync:      {"Fsync", "fsync"},
	Fallocate:  {"Fallocate", "fallocate"},
	Unlinkat:   {"Unlinkat", "unlinkat"},
	Mkdirat:    {"Mkdirat", "mkdirat"},
	Renameat:   {"Renameat", "renameat"},
	Splice:     {"Splice", "splice"},
	Poll:       {"Poll", "poll_add"},
	Sleep:      {"Sleep", "timeout"},
	Socket:     {"Socket", "socket"},
	Connect:    {"Connect", "connect"},
	Accept:     {"Accept", "accept"},
	Recv:       {"Recv", "recv"},
	Send:       {"Send", "send"},
	SendZC:     {"SendZC", "send_zc"},
	Sendmsg:    {"Sendmsg", "sendmsg"},
	Recvmsg:    {"Recvmsg", "recvmsg"},
	Shutdown:   {"Shutdown", "shutdown"},
	Raw:        {"Await", "await"},
	Link:       {"Link", "link"},
}

// Func is the task method an argument error of c names ("ReadCached").
func (c Code) Func() string { return names[c].fn }

// Name is the operation an *OpError of c names ("read", "poll_add").
func (c Code) Name() string { return names[c].op }

// Op describes one operation: its Code and the arguments that code reads
// (see the codes). A field the code does not name may hold anything.
type Op struct {
	Code     Code
	Fixed    bool   // Fd is a registered file's slot
	BufIndex uint16 // ReadFixed, WriteFixed: the registered buffer buf lies in
	Mode     uint32
	Events   uint32
	Fd, Fd2  int
	Flags    int
	Off      int64
	Off2     int64
	Len      int64
	Buf      []byte
	Bufs     [][]byte
	OOB      []byte
	Path     string
	Path2    string
	Addr     netip.AddrPort
	Dur      time.Duration
	Stat     *StatBuf
	Prep     func(*sys.SQE) // fills the SQE of a Raw op of a Link (its memory is the caller's)
	Links    []Op           // a Link's operations, in order
	Results  []Result       // a Link's results, one per operation (filled by the backend)
	Deadline int64          // UnixNano; 0: none (io_uring links a LINK_TIMEOUT, the fallback arms a timer on its readiness waits)
}

// Result is the outcome of one CQE (of a Link's operation).
type Result struct {
	Res   int32
	Flags uint32
}
