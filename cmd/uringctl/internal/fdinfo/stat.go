package fdinfo

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100 on
// every Linux architecture's ABI).
const userHZ = 100

// Thread is the CPU time of one thread, from /proc/PID/task/TID/stat.
type Thread struct {
	TID      int
	Comm     string
	State    string
	UserTime time.Duration
	SysTime  time.Duration
}

// CPUTime is user plus system time.
func (t Thread) CPUTime() time.Duration { return t.UserTime + t.SysTime }

// ParseStat parses the first fields of a /proc/PID/stat line: "tid (comm)
// state ppid ... utime stime ...". comm may hold spaces and parentheses, so
// it runs to the last ')'.
func ParseStat(line string) (Thread, error) {
	var t Thread
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return t, errors.New("fdinfo: stat: no (comm)")
	}
	tid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return t, errors.New("fdinfo: stat: bad tid")
	}
	t.TID, t.Comm = tid, line[open+1:end]
	f := strings.Fields(line[end+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return t, errors.New("fdinfo: stat: too few fields")
	}
	t.State = f[0]
	ut, err1 := strconv.ParseUint(f[11], 10, 63)
	st, err2 := strconv.ParseUint(f[12], 10, 63)
	if err1 != nil || err2 != nil {
		return t, errors.New("fdinfo: stat: bad utime/stime")
	}
	t.UserTime = time.Duration(ut) * time.Second / userHZ
	t.SysTime = time.Duration(st) * time.Second / userHZ
	return t, nil
}
