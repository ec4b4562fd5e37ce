package main

import (
	"time"

	"github.com/pure-uring/uring/cmd/uringctl/internal/fdinfo"
)

// inspectReport is the schema of `uringctl inspect --json`: one object per
// refresh (each on its own line with --watch).
type inspectReport struct {
	Time      time.Time     `json:"time"`                    // when the scan ended
	Watch     float64       `json:"watch_seconds,omitempty"` // --watch interval
	Rings     []inspectRing `json:"rings"`                   // sorted by pid, then fd; [] when none
	DeniedPID []int         `json:"denied_pids,omitempty"`   // processes whose fds could not be read
	Errors    []string      `json:"errors,omitempty"`        // PIDs asked for that could not be read
}

// inspectRing is one io_uring instance (one ring fd of one process).
type inspectRing struct {
	PID   int    `json:"pid"`
	Comm  string `json:"comm"`
	FD    int    `json:"fd"`
	Inode uint64 `json:"inode"` // the ring's anon inode: equal across fds of one ring
	// Unavailable lists the parts the kernel did not print because it could
	// not take the ring's lock in Attempts reads: "ring" (everything below
	// but the inode is then null or zero), "files", "buffers". [] when whole.
	Unavailable []string `json:"unavailable"`
	Attempts    int      `json:"attempts"`

	// SQ and CQ are null when "ring" is unavailable, and on kernels that
	// print no ring indices (SqMask and the rest: before 5.17).
	SQ       *inspectSQ     `json:"sq"`
	CQ       *inspectCQ     `json:"cq"`
	Files    *inspectFiles  `json:"files"`           // registered file table; null when not printed
	Buffers  *inspectBufs   `json:"buffers"`         // registered buffer table; null when not printed
	PollList int            `json:"poll_list"`       // requests in the poll/cancel hash
	SQPoll   *inspectSQPoll `json:"sqpoll"`          // null without an SQPOLL thread
	NAPI     *inspectNAPI   `json:"napi"`            // null when the kernel does not print NAPI (before 6.9)
	Rates    *inspectRates  `json:"rates,omitempty"` // --watch, from the second refresh on
	// Unknown holds fdinfo lines this version does not understand.
	Unknown map[string]string `json:"unknown,omitempty"`
}

// inspectSQ is the submission ring.
type inspectSQ struct {
	Entries    uint32       `json:"entries"` // SqMask+1
	Mask       uint32       `json:"mask"`
	Head       uint32       `json:"head"`        // kernel's consumed index (shared)
	Tail       uint32       `json:"tail"`        // application's published index
	CachedHead uint32       `json:"cached_head"` // kernel's private head
	Pending    uint32       `json:"pending"`     // tail-head: published, not yet consumed
	SQEs       []inspectSQE `json:"sqes"`        // the pending SQEs the kernel listed
}

// inspectSQE is one pending SQE as the kernel lists it.
type inspectSQE struct {
	Index    uint32   `json:"index"`
	Opcode   string   `json:"opcode"`
	Fd       int32    `json:"fd"`
	Flags    uint8    `json:"flags"`
	Off      uint64   `json:"off"`
	Addr     uint64   `json:"addr"`
	RWFlags  uint32   `json:"rw_flags"`
	BufIndex int32    `json:"buf_index"`
	UserData uint64   `json:"user_data"`
	Extra    []uint64 `json:"extra,omitempty"` // SQE128: second half, 8 words
}

// inspectCQ is the completion ring.
type inspectCQ struct {
	Entries      uint32       `json:"entries"` // CqMask+1
	Mask         uint32       `json:"mask"`
	Head         uint32       `json:"head"`          // application's consumed index
	Tail         uint32       `json:"tail"`          // kernel's published index
	CachedTail   uint32       `json:"cached_tail"`   // kernel's private tail
	Pending      uint32       `json:"pending"`       // tail-head: posted, not yet reaped
	CQEs         []inspectCQE `json:"cqes"`          // the pending CQEs the kernel listed
	OverflowList []inspectCQE `json:"overflow_list"` // CQEs waiting for room in the ring
}

// inspectCQE is one CQE; Index is -1 on the overflow list.
type inspectCQE struct {
	Index    int64      `json:"index"`
	UserData uint64     `json:"user_data"`
	Res      int32      `json:"res"`
	Flags    uint32     `json:"flags"`
	Extra    *[2]uint64 `json:"extra,omitempty"` // CQE32: big_cqe[0], big_cqe[1]
}

// inspectFiles is the registered file table.
type inspectFiles struct {
	Count   uint32        `json:"count"`   // table size (slots)
	Entries []inspectFile `json:"entries"` // occupied slots (6.15+ lists only those)
}

type inspectFile struct {
	Index uint32 `json:"index"`
	Name  string `json:"name"` // "" for an empty slot
}

// inspectBufs is the registered buffer table.
type inspectBufs struct {
	Count   uint32       `json:"count"`
	Entries []inspectBuf `json:"entries"`
}

type inspectBuf struct {
	Index uint32 `json:"index"`
	Addr  uint64 `json:"addr"`
	Len   uint64 `json:"len"`
	Empty bool   `json:"empty,omitempty"`
}

// inspectSQPoll is the SQPOLL kernel thread.
type inspectSQPoll struct {
	TID int `json:"tid"`
	CPU int `json:"cpu"` // CPU it last ran on
	// From /proc/PID/task/TID/stat; null fields when it could not be read.
	UserSeconds *float64 `json:"user_seconds"`
	SysSeconds  *float64 `json:"sys_seconds"`
	// SqTotalTime and SqWorkTime of fdinfo (microseconds; 0 on kernels
	// that do not print them).
	TotalTimeUS uint64 `json:"total_time_us"`
	WorkTimeUS  uint64 `json:"work_time_us"`
}

// inspectNAPI is NAPI busy polling.
type inspectNAPI struct {
	Enabled        bool   `json:"enabled"`
	Mode           string `json:"mode"`     // the kernel's word: enabled, disabled, unknown mode (N)
	Tracking       string `json:"tracking"` // dynamic, static; "" when disabled
	BusyPollNS     uint64 `json:"busy_poll_ns"`
	PreferBusyPoll bool   `json:"prefer_busy_poll"`
}

// inspectRates are the rates since the previous refresh.
type inspectRates struct {
	Seconds    float64 `json:"seconds"`      // time since the previous refresh
	SQEsPerSec float64 `json:"sqes_per_sec"` // SQ tail delta / seconds
	CQEsPerSec float64 `json:"cqes_per_sec"` // CQ tail delta / seconds
}

func buildReport(res *fdinfo.Result, now time.Time, watch time.Duration) inspectReport {
	rep := inspectReport{Time: now, Watch: watch.Seconds(), Rings: []inspectRing{}, DeniedPID: res.Denied}
	for _, e := range res.Errors {
		rep.Errors = append(rep.Errors, e.Error())
	}
	for _, in := range res.Instances {
		rep.Rings = append(rep.Rings, buildRing(in))
	}
	return rep
}

func buildRing(in fdinfo.Instance) inspectRing {
	i := in.Info
	r := inspectRing{PID: in.PID, Comm: in.Comm, FD: in.FD, Inode: i.Ino, Attempts: in.Attempts,
		Unavailable: []string{}, PollList: len(i.PollList), Unknown: i.Unknown}
	for _, p := range i.Unavailable {
		r.Unavailable = append(r.Unavailable, string(p))
	}
	if i.Missing(fdinfo.PartRing) {
		return r
	}
	if i.Has("SqMask") {
		r.SQ, r.CQ = buildQueues(i)
	}
	if i.Has("UserFiles") {
		r.Files = &inspectFiles{Count: i.UserFiles, Entries: []inspectFile{}}
		for _, f := range i.Files {
			r.Files.Entries = append(r.Files.Entries, inspectFile{Index: f.Index, Name: f.Name})
		}
	}
	if i.Has("UserBufs") {
		r.Buffers = &inspectBufs{Count: i.UserBufs, Entries: []inspectBuf{}}
		for _, b := range i.Bufs {
			r.Buffers.Entries = append(r.Buffers.Entries, inspectBuf{Index: b.Index, Addr: b.Addr, Len: b.Len, Empty: b.Empty})
		}
	}
	if i.SQThread > 0 {
		sp := &inspectSQPoll{TID: i.SQThread, CPU: i.SQThreadCPU, TotalTimeUS: i.SQTotalTime, WorkTimeUS: i.SQWorkTime}
		if t := in.SQThread; t != nil {
			u, s := t.UserTime.Seconds(), t.SysTime.Seconds()
			sp.UserSeconds, sp.SysSeconds = &u, &s
		}
		r.SQPoll = sp
	}
	if i.NAPI.Present {
		r.NAPI = &inspectNAPI{Enabled: i.NAPI.Enabled, Mode: i.NAPI.Mode, Tracking: i.NAPI.Tracking,
			BusyPollNS: i.NAPI.BusyPollDT, PreferBusyPoll: i.NAPI.PreferBusyPoll}
	}
	return r
}

// buildQueues is the SQ and CQ of a ring whose fdinfo has the indices.
func buildQueues(i *fdinfo.Info) (*inspectSQ, *inspectCQ) {
	sq := &inspectSQ{Entries: i.SQEntries(), Mask: i.SQMask, Head: i.SQHead, Tail: i.SQTail,
		CachedHead: i.CachedSQHead, Pending: i.SQEs, SQEs: []inspectSQE{}}
	for _, s := range i.SQEList {
		sq.SQEs = append(sq.SQEs, inspectSQE{Index: s.Index, Opcode: s.Opcode, Fd: s.Fd, Flags: s.Flags,
			Off: s.Off, Addr: s.Addr, RWFlags: s.RWFlags, BufIndex: s.BufIndex, UserData: s.UserData, Extra: s.Extra})
	}
	cq := &inspectCQ{Entries: i.CQEntries(), Mask: i.CQMask, Head: i.CQHead, Tail: i.CQTail,
		CachedTail: i.CachedCQTail, Pending: i.CQEs, CQEs: []inspectCQE{}, OverflowList: []inspectCQE{}}
	for _, c := range i.CQEList {
		e := inspectCQE{Index: int64(c.Index), UserData: c.UserData, Res: c.Res, Flags: c.Flags}
		if c.Big {
			e.Extra = &[2]uint64{c.Extra1, c.Extra2}
		}
		cq.CQEs = append(cq.CQEs, e)
	}
	for _, c := range i.Overflow {
		cq.OverflowList = append(cq.OverflowList, inspectCQE{Index: -1, UserData: c.UserData, Res: c.Res, Flags: c.Flags})
	}
	return sq, cq
}
