package fdinfo

// Part names a part of the fdinfo output the kernel prints only while it
// holds the ring's uring_lock.
type Part string

const (
	PartRing    Part = "ring"    // the whole io_uring section (Linux 6.15+ prints none of it without the lock)
	PartFiles   Part = "files"   // the list of registered files (before 6.15)
	PartBuffers Part = "buffers" // the list of registered buffers (before 6.15)
)

// Info is what one /proc/PID/fdinfo/FD of an io_uring fd says. Counters keep
// the kernel's names; list fields hold the entries the kernel printed, which
// may be fewer than the count (it prints at most one ring's worth, skips
// empty file slots, and stops early on NO_SQARRAY rings).
type Info struct {
	// Generic fdinfo lines of every file.
	Pos   uint64
	Flags uint64 // open flags, printed in octal
	MntID uint64
	Ino   uint64

	SQMask       uint32 // SqMask: sq_entries-1
	SQHead       uint32 // SqHead: the kernel's consumed index in the shared ring
	SQTail       uint32 // SqTail: the application's published index
	CachedSQHead uint32 // CachedSqHead: the kernel's private head
	CQMask       uint32 // CqMask: cq_entries-1
	CQHead       uint32 // CqHead: the application's consumed index
	CQTail       uint32 // CqTail: the kernel's published index
	CachedCQTail uint32 // CachedCqTail: the kernel's private tail

	SQEs    uint32 // SQEs: SqTail-SqHead, submitted to the ring but not consumed
	SQEList []SQE
	CQEs    uint32 // CQEs: CqTail-CqHead, posted but not reaped
	CQEList []CQE

	SQThread    int    // SqThread: tid of the SQPOLL thread, -1 without one
	SQThreadCPU int    // SqThreadCpu: CPU it last ran on, -1 without one
	SQTotalTime uint64 // SqTotalTime: system CPU time of the SQPOLL thread, microseconds
	SQWorkTime  uint64 // SqWorkTime: time it spent doing work, microseconds

	UserFiles uint32 // UserFiles: size of the registered file table
	Files     []File
	UserBufs  uint32 // UserBufs: size of the registered buffer table
	Bufs      []Buf

	Personalities []int // ids listed under Personalities:

	PollList []Poll        // requests in the poll/cancel hash
	Overflow []OverflowCQE // CqOverflowList: CQEs waiting for room in the CQ ring

	NAPI NAPI

	// Unknown holds lines Parse did not understand: key → value ("" for a
	// line without a colon; repeated keys joined with "\n").
	Unknown map[string]string
	// Unavailable lists the parts the kernel left out because it could not
	// take the ring's lock.
	Unavailable []Part

	seen map[string]bool
}

// SQE is one pending submission the kernel printed.
type SQE struct {
	Index    uint32 // slot in the SQE array
	Opcode   string // kernel's name of the opcode (e.g. "READ")
	Fd       int32
	Flags    uint8 // SQE flags (IOSQE_*)
	Off      uint64
	Addr     uint64
	RWFlags  uint32
	BufIndex int32
	UserData uint64
	Extra    []uint64 // the second 64 bytes of a 128-byte SQE, as eight words
}

// CQE is one unreaped completion the kernel printed.
type CQE struct {
	Index    uint32 // slot in the CQ ring
	UserData uint64
	Res      int32
	Flags    uint32
	Big      bool // printed with extra1/extra2 (32-byte CQE)
	Extra1   uint64
	Extra2   uint64
}

// File is one registered file slot.
type File struct {
	Index uint32
	// Name is the file's path as the kernel prints it: "pipe:[123]" from
	// 6.13; before, the dentry's short name, which is "" for pipes and
	// sockets. "" for an empty slot.
	Name  string
	Empty bool // printed as <none> (before 6.13, which lists empty slots)
}

// Buf is one registered buffer slot.
type Buf struct {
	Index uint32
	Addr  uint64
	Len   uint64
	Empty bool // printed as <none>
}

// Poll is one request in the poll/cancel hash.
type Poll struct {
	Op        int
	TaskWorks int
}

// OverflowCQE is one CQE on the overflow list.
type OverflowCQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// NAPI is the busy-poll state (Linux 6.9+).
type NAPI struct {
	Present        bool   // a NAPI: line was printed
	Enabled        bool   // NAPI: enabled
	Mode           string // raw NAPI: value ("enabled", "disabled", "unknown mode (N)")
	Tracking       string // napi tracking: dynamic, static
	BusyPollDT     uint64 // napi_busy_poll_dt: busy-poll time, nanoseconds
	PreferBusyPoll bool   // napi_prefer_busy_poll
}

// Has reports whether the top-level key (as the kernel spells it, e.g.
// "SqHead") was present.
func (i *Info) Has(key string) bool { return i.seen[key] }

// SQEntries is the SQ ring size (SqMask+1), 0 when SqMask was not printed.
func (i *Info) SQEntries() uint32 {
	if !i.Has("SqMask") {
		return 0
	}
	return i.SQMask + 1
}

// CQEntries is the CQ ring size (CqMask+1), 0 when CqMask was not printed.
func (i *Info) CQEntries() uint32 {
	if !i.Has("CqMask") {
		return 0
	}
	return i.CQMask + 1
}

// Missing reports whether part p is in Unavailable.
func (i *Info) Missing(p Part) bool {
	for _, u := range i.Unavailable {
		if u == p {
			return true
		}
	}
	return false
}
