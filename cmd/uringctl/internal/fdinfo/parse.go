package fdinfo

import (
	"bytes"
	"strconv"
	"strings"
)

// Options tell Parse which kernel generation printed the text.
type Options struct {
	// PartialLock is set for kernels before 6.15, which print the ring's
	// counters without the lock and leave out only the file and buffer lists
	// (and the SQPOLL thread) when mutex_trylock fails. Newer kernels print
	// the whole section or none of it.
	PartialLock bool
}

// section is the list a line indented under a header belongs to.
type section int

const (
	secNone section = iota
	secSQEs
	secCQEs
	secFiles
	secBufs
	secPersonalities
	secPoll
	secOverflow
)

var sectionOf = map[string]section{
	"SQEs": secSQEs, "CQEs": secCQEs, "UserFiles": secFiles, "UserBufs": secBufs,
	"Personalities": secPersonalities, "PollList": secPoll, "CqOverflowList": secOverflow,
}

// Parse parses fdinfo text printed by Linux 6.15 or newer. It never panics
// and never returns nil.
func Parse(data []byte) *Info { return ParseWith(data, Options{}) }

// ParseWith parses fdinfo text with opt.
func ParseWith(data []byte, opt Options) *Info {
	info := &Info{SQThread: -1, SQThreadCPU: -1, seen: map[string]bool{}}
	sec := secNone
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		s := strings.TrimRight(string(line), "\r")
		if strings.TrimSpace(s) == "" {
			continue // CQE32 entries end in an extra blank line
		}
		if s[0] == ' ' || s[0] == '\t' {
			if !info.entry(sec, s) {
				info.unknown(strings.TrimSpace(s), "")
			}
			continue
		}
		key, val, ok := strings.Cut(s, ":")
		if !ok {
			info.unknown(s, "")
			sec = secNone
			continue
		}
		val = strings.TrimSpace(val)
		sec = sectionOf[key] // secNone for plain keys: their entries end here
		if !info.field(key, val) {
			info.unknown(key, val)
			continue
		}
		info.seen[key] = true
	}
	info.detectGaps(opt)
	return info
}

func (i *Info) unknown(key, val string) {
	if i.Unknown == nil {
		i.Unknown = map[string]string{}
	}
	if old, ok := i.Unknown[key]; ok {
		val = old + "\n" + val
	}
	i.Unknown[key] = val
}

// field stores one top-level key; false when the key is unknown or its
// value does not parse.
func (i *Info) field(key, val string) bool {
	u32 := func(dst *uint32) bool {
		v, err := strconv.ParseUint(val, 0, 32)
		if err != nil {
			return false
		}
		*dst = uint32(v)
		return true
	}
	u64 := func(dst *uint64, base int) bool {
		v, err := strconv.ParseUint(val, base, 64)
		if err != nil {
			return false
		}
		*dst = v
		return true
	}
	int32f := func(dst *int) bool {
		v, err := strconv.ParseInt(val, 10, 32)
		if err != nil {
			return false
		}
		*dst = int(v)
		return true
	}
	switch key {
	case "pos":
		return u64(&i.Pos, 10)
	case "flags":
		return u64(&i.Flags, 8)
	case "mnt_id":
		return u64(&i.MntID, 10)
	case "ino":
		return u64(&i.Ino, 10)
	case "SqMask":
		return u32(&i.SQMask)
	case "SqHead":
		return u32(&i.SQHead)
	case "SqTail":
		return u32(&i.SQTail)
	case "CachedSqHead":
		return u32(&i.CachedSQHead)
	case "CqMask":
		return u32(&i.CQMask)
	case "CqHead":
		return u32(&i.CQHead)
	case "CqTail":
		return u32(&i.CQTail)
	case "CachedCqTail":
		return u32(&i.CachedCQTail)
	case "SQEs":
		return u32(&i.SQEs)
	case "CQEs":
		return u32(&i.CQEs)
	case "SqThread":
		return int32f(&i.SQThread)
	case "SqThreadCpu":
		return int32f(&i.SQThreadCPU)
	case "SqTotalTime":
		return u64(&i.SQTotalTime, 10)
	case "SqWorkTime":
		return u64(&i.SQWorkTime, 10)
	case "UserFiles":
		return u32(&i.UserFiles)
	case "UserBufs":
		return u32(&i.UserBufs)
	case "Personalities", "PollList", "CqOverflowList":
		return val == ""
	case "NAPI":
		i.NAPI.Present, i.NAPI.Mode, i.NAPI.Enabled = true, val, val == "enabled"
		return true
	case "napi tracking":
		i.NAPI.Tracking = val
		return true
	case "napi_busy_poll_dt":
		return u64(&i.NAPI.BusyPollDT, 10)
	case "napi_prefer_busy_poll":
		b, err := strconv.ParseBool(val)
		i.NAPI.PreferBusyPoll = b
		return err == nil
	}
	return false
}

// entry parses one indented line of section sec; false when it does not fit.
func (i *Info) entry(sec section, s string) bool {
	s = strings.TrimSpace(s)
	switch sec {
	case secPoll:
		kv := pairs(s, '=')
		var p Poll
		ok := atoi(kv["op"], &p.Op) && atoi(kv["task_works"], &p.TaskWorks)
		i.PollList = append(i.PollList, p)
		return ok
	case secOverflow:
		kv := pairs(s, '=')
		var c OverflowCQE
		var res int
		ok := atou(kv["user_data"], 10, &c.UserData) && atoi(kv["res"], &res)
		c.Res = int32(res)
		var fl uint64
		ok = atou(kv["flags"], 16, &fl) && ok
		c.Flags = uint32(fl)
		i.Overflow = append(i.Overflow, c)
		return ok
	case secPersonalities:
		if id, err := strconv.Atoi(s); err == nil {
			i.Personalities = append(i.Personalities, id)
			return true
		}
		// The credential lines under each id (Uid:, Gid:, Groups:, CapEff:).
		k, _, _ := strings.Cut(s, ":")
		return k == "Uid" || k == "Gid" || k == "Groups" || k == "CapEff"
	}
	idxStr, rest, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	idx64, err := strconv.ParseUint(strings.TrimSpace(idxStr), 10, 32)
	if err != nil {
		return false
	}
	idx := uint32(idx64)
	rest = strings.TrimSpace(rest)
	switch sec {
	case secSQEs:
		return i.sqe(idx, rest)
	case secCQEs:
		return i.cqe(idx, rest)
	case secFiles:
		f := File{Index: idx}
		if rest == "<none>" {
			f.Empty = true
		} else {
			f.Name = rest
		}
		i.Files = append(i.Files, f)
		return true
	case secBufs:
		b := Buf{Index: idx}
		if rest == "<none>" {
			b.Empty = true
			i.Bufs = append(i.Bufs, b)
			return true
		}
		addr, n, ok := strings.Cut(rest, "/")
		ok = ok && atou(addr, 0, &b.Addr) && atou(n, 10, &b.Len)
		i.Bufs = append(i.Bufs, b)
		return ok
	}
	return false
}

// sqe parses "opcode:NOP, fd:-1, flags:0, off:0, addr:0x0, rw_flags:0x0,
// buf_index:0 user_data:22[, e0:0x0 ... e7:0x0]".
func (i *Info) sqe(idx uint32, s string) bool {
	kv := pairs(s, ':')
	e := SQE{Index: idx, Opcode: kv["opcode"]}
	var fd, bi int
	var fl, rw uint64
	ok := atoi(kv["fd"], &fd) && atou(kv["flags"], 16, &fl) && atou(kv["off"], 10, &e.Off) &&
		atou(kv["addr"], 0, &e.Addr) && atou(kv["rw_flags"], 0, &rw) && atoi(kv["buf_index"], &bi) &&
		atou(kv["user_data"], 10, &e.UserData)
	e.Fd, e.Flags, e.RWFlags, e.BufIndex = int32(fd), uint8(fl), uint32(rw), int32(bi)
	for j := 0; ; j++ {
		v, has := kv["e"+strconv.Itoa(j)]
		if !has {
			break
		}
		var w uint64
		ok = atou(v, 0, &w) && ok
		e.Extra = append(e.Extra, w)
	}
	i.SQEList = append(i.SQEList, e)
	return ok
}

// cqe parses "user_data:11, res:0, flag:0[, extra1:0, extra2:0]" (newer
// kernels spell flag as flags).
func (i *Info) cqe(idx uint32, s string) bool {
	kv := pairs(s, ':')
	c := CQE{Index: idx}
	var res int
	var fl uint64
	flags, has := kv["flag"]
	if !has {
		flags = kv["flags"]
	}
	ok := atou(kv["user_data"], 10, &c.UserData) && atoi(kv["res"], &res) && atou(flags, 16, &fl)
	c.Res, c.Flags = int32(res), uint32(fl)
	if v, has := kv["extra1"]; has {
		c.Big = true
		ok = atou(v, 10, &c.Extra1) && atou(kv["extra2"], 10, &c.Extra2) && ok
	}
	i.CQEList = append(i.CQEList, c)
	return ok
}

// pairs splits "a:1, b:2 c:3" (or with '=') into a map; tokens are separated
// by commas and spaces.
func pairs(s string, sep byte) map[string]string {
	m := map[string]string{}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if k, v, ok := strings.Cut(tok, string(sep)); ok {
			m[k] = v
		}
	}
	return m
}

func atoi(s string, dst *int) bool {
	v, err := strconv.ParseInt(s, 10, 64)
	*dst = int(v)
	return err == nil
}

func atou(s string, base int, dst *uint64) bool {
	v, err := strconv.ParseUint(s, base, 64)
	*dst = v
	return err == nil
}

// ringKeys are the keys every kernel since 5.x prints for a ring it could
// lock (or, before 6.15, unconditionally).
var ringKeys = []string{"SqMask", "SqHead", "SqTail", "CqMask", "CqHead", "CqTail", "SQEs", "CQEs", "UserFiles", "UserBufs"}

// detectGaps records the parts the kernel left out for want of the lock.
func (i *Info) detectGaps(opt Options) {
	anyRing := false
	for _, k := range ringKeys {
		anyRing = anyRing || i.seen[k]
	}
	if !anyRing {
		// Only the generic lines (or nothing): the 6.15+ kernel could not
		// take uring_lock and printed none of the ring.
		i.Unavailable = append(i.Unavailable, PartRing)
		return
	}
	if !opt.PartialLock {
		return
	}
	// Before 6.15 a locked print lists every slot (<none> for empty ones),
	// so a non-empty table with no entries means the trylock failed.
	if i.seen["UserFiles"] && i.UserFiles > 0 && len(i.Files) == 0 {
		i.Unavailable = append(i.Unavailable, PartFiles)
	}
	if i.seen["UserBufs"] && i.UserBufs > 0 && len(i.Bufs) == 0 {
		i.Unavailable = append(i.Unavailable, PartBuffers)
	}
}
