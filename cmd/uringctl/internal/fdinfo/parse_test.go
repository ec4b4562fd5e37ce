package fdinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestParseEmpty(t *testing.T) {
	i := Parse(sample(t, "empty.txt"))
	require.Empty(t, i.Unknown)
	require.Empty(t, i.Unavailable)
	require.EqualValues(t, 8, i.SQEntries())
	require.EqualValues(t, 16, i.CQEntries())
	require.EqualValues(t, 0o2000002, i.Flags)
	require.EqualValues(t, 17, i.MntID)
	require.Equal(t, -1, i.SQThread)
	require.Equal(t, -1, i.SQThreadCPU)
	require.True(t, i.NAPI.Present)
	require.False(t, i.NAPI.Enabled)
	require.Equal(t, "disabled", i.NAPI.Mode)
	require.True(t, i.Has("CqOverflowList"))
	require.Empty(t, i.Overflow)
}

func TestParseFilesBufsPending(t *testing.T) {
	i := Parse(sample(t, "files_bufs_pending.txt"))
	require.Empty(t, i.Unknown)
	require.Empty(t, i.Unavailable)
	require.EqualValues(t, 16, i.SQEntries())
	require.EqualValues(t, 64, i.CQEntries())
	require.EqualValues(t, 3, i.SQHead)
	require.EqualValues(t, 5, i.SQTail)
	require.EqualValues(t, 3, i.CachedSQHead)
	require.EqualValues(t, 3, i.CQTail)
	require.EqualValues(t, 3, i.CachedCQTail)
	require.EqualValues(t, 2, i.SQEs)
	require.Equal(t, []SQE{
		{Index: 3, Opcode: "NOP", Fd: -1, UserData: 22},
		{Index: 4, Opcode: "NOP", Fd: -1, UserData: 22},
	}, i.SQEList)
	require.EqualValues(t, 3, i.CQEs)
	require.Len(t, i.CQEList, 3)
	require.Equal(t, CQE{Index: 2, UserData: 11}, i.CQEList[2])
	require.EqualValues(t, 3, i.UserFiles)
	require.Len(t, i.Files, 2)
	require.EqualValues(t, 2, i.Files[1].Index)
	require.True(t, strings.HasPrefix(i.Files[1].Name, "pipe:["), i.Files[1].Name)
	require.EqualValues(t, 2, i.UserBufs)
	require.Len(t, i.Bufs, 2)
	require.EqualValues(t, 4096, i.Bufs[1].Len)
	require.Equal(t, i.Bufs[0].Addr+4096, i.Bufs[1].Addr)
}

func TestParseBig(t *testing.T) {
	i := Parse(sample(t, "big.txt"))
	require.Empty(t, i.Unknown)
	require.Len(t, i.SQEList, 1)
	require.Equal(t, make([]uint64, 8), i.SQEList[0].Extra)
	require.EqualValues(t, 6, i.SQEList[0].UserData)
	require.Equal(t, []CQE{{Index: 0, UserData: 5, Big: true}}, i.CQEList)
	require.Equal(t, -1, i.SQThread, "the blank line after a CQE32 entry must not end parsing")
}

func TestParseSQPoll(t *testing.T) {
	i := Parse(sample(t, "sqpoll.txt"))
	require.Empty(t, i.Unknown)
	require.Equal(t, 10415, i.SQThread)
	require.EqualValues(t, 1, i.SQEs)
}

func TestParseNAPIPoll(t *testing.T) {
	i := Parse(sample(t, "napi_poll.txt"))
	require.Empty(t, i.Unknown)
	require.Equal(t, NAPI{Present: true, Enabled: true, Mode: "enabled", Tracking: "dynamic", BusyPollDT: 50000, PreferBusyPoll: true}, i.NAPI)
	require.Equal(t, []Poll{{Op: 6, TaskWorks: 0}}, i.PollList)
}

func TestParseOverflow(t *testing.T) {
	i := Parse(sample(t, "overflow.txt"))
	require.Empty(t, i.Unknown)
	require.EqualValues(t, 2, i.SQEntries())
	require.EqualValues(t, 4, i.CQEs)
	require.Equal(t, []OverflowCQE{{UserData: 102}, {UserData: 102}}, i.Overflow)
}

func TestParseNoSQArray(t *testing.T) {
	i := Parse(sample(t, "nosqarray.txt"))
	require.Empty(t, i.Unknown)
	require.EqualValues(t, 2, i.SQEs)
	require.Empty(t, i.SQEList, "the kernel cannot list SQEs without the SQ array")
}

func TestParseLocked(t *testing.T) {
	i := Parse(sample(t, "locked.txt"))
	require.Equal(t, []Part{PartRing}, i.Unavailable)
	require.True(t, i.Missing(PartRing))
	require.EqualValues(t, 0, i.SQEntries())
	require.False(t, i.Has("SqMask"))
	require.NotZero(t, i.Ino)
}

func TestParseOldKernel(t *testing.T) {
	b := sample(t, "old_nolock.txt")
	require.Empty(t, Parse(b).Unavailable, "6.15+ rules: a printed ring was printed whole")
	i := ParseWith(b, Options{PartialLock: true})
	require.Equal(t, []Part{PartFiles, PartBuffers}, i.Unavailable)
	require.Empty(t, i.Unknown)
	require.EqualValues(t, 64, i.SQEntries())
	require.Equal(t, []SQE{{Index: 1057, Opcode: "READ", Flags: 1, Off: 4096, Addr: 0x7f0000001000, UserData: 99}}, i.SQEList)
	require.Equal(t, []CQE{{Index: 26, UserData: 1, Res: 4096}}, i.CQEList)

	i = ParseWith(sample(t, "old_locked_personality.txt"), Options{PartialLock: true})
	require.Empty(t, i.Unavailable)
	require.Empty(t, i.Unknown)
	require.Equal(t, []File{{Index: 0, Name: "sock:[4711]"}, {Index: 1, Empty: true}}, i.Files)
	require.Equal(t, []Buf{{Index: 0, Empty: true}}, i.Bufs)
	require.Equal(t, []int{1}, i.Personalities)
	require.Equal(t, []Poll{{Op: 6}, {Op: 6, TaskWorks: 1}}, i.PollList)
	require.Equal(t, []OverflowCQE{{UserData: 5, Res: -11, Flags: 2}}, i.Overflow)
	require.EqualValues(t, 18099614, i.SQTotalTime)
	require.EqualValues(t, 16748316, i.SQWorkTime)
	require.False(t, i.NAPI.Present)
}

// Debian's 5.10 (io_uring of about 5.14): no ino line, no queue state,
// every file slot listed with the dentry's short name (empty for a pipe).
func TestParse510(t *testing.T) {
	i := ParseWith(sample(t, "v5.10.txt"), Options{PartialLock: true})
	require.Empty(t, i.Unknown)
	require.Empty(t, i.Unavailable)
	require.False(t, i.Has("ino"))
	require.False(t, i.Has("SqMask"))
	require.Zero(t, i.SQEntries(), "not printed")
	require.EqualValues(t, 14, i.MntID)
	require.Equal(t, -1, i.SQThread)
	require.EqualValues(t, 4, i.UserFiles)
	require.Equal(t, []File{{Index: 0}, {Index: 1}, {Index: 2, Empty: true}, {Index: 3, Empty: true}}, i.Files)
	require.EqualValues(t, 3, i.UserBufs)
	require.Equal(t, []Buf{{Index: 0, Addr: 0x7f03396d1000, Len: 4096}, {Index: 1, Addr: 0x7f03396d2000, Len: 4096},
		{Index: 2, Addr: 0x7f03396d3000, Len: 4096}}, i.Bufs)
	require.True(t, i.Has("PollList"))
	require.Empty(t, i.PollList)

	// Without the lock 5.10 leaves out the lists: seen as gaps.
	var nolock []byte
	for _, l := range strings.SplitAfter(string(sample(t, "v5.10.txt")), "\n") {
		if !strings.HasPrefix(l, "    ") {
			nolock = append(nolock, l...)
		}
	}
	i = ParseWith(nolock, Options{PartialLock: true})
	require.Equal(t, []Part{PartFiles, PartBuffers}, i.Unavailable)
}

func TestParseReorderedAndUnknown(t *testing.T) {
	in := "CqMask:\t0x1f\nFutureKey:\t42\nSqMask:\t0x7\nbroken line\nSqHead:\tnotanumber\nNewList:\n  x: y\nSqTail:\t9\nFutureKey:\t43\n"
	i := Parse([]byte(in))
	require.EqualValues(t, 8, i.SQEntries())
	require.EqualValues(t, 32, i.CQEntries())
	require.EqualValues(t, 9, i.SQTail)
	require.False(t, i.Has("SqHead"))
	require.Equal(t, map[string]string{
		"FutureKey":   "42\n43",
		"broken line": "",
		"SqHead":      "notanumber",
		"NewList":     "",
		"x: y":        "",
	}, i.Unknown)
	require.Empty(t, i.Unavailable)
}

func TestParseTruncated(t *testing.T) {
	full := sample(t, "files_bufs_pending.txt")
	for n := 0; n <= len(full); n++ {
		i := Parse(full[:n])
		require.NotNil(t, i)
		require.LessOrEqual(t, len(i.SQEList), 2)
	}
	// Cut inside the SQE list: counters before it survive.
	cut := strings.Index(string(full), "user_data:22")
	i := Parse(full[:cut])
	require.EqualValues(t, 16, i.SQEntries())
	require.EqualValues(t, 2, i.SQEs)
	require.Len(t, i.SQEList, 1)
	require.False(t, i.Has("UserFiles"))
}

func TestParseStat(t *testing.T) {
	th, err := ParseStat("4242 (iou-sqp-4) S 1 4241 4241 0 -1 4194624 0 0 0 0 150 275 0 0 20 0 1 0 1 0 0")
	require.NoError(t, err)
	require.Equal(t, Thread{TID: 4242, Comm: "iou-sqp-4", State: "S", UserTime: 1500 * time.Millisecond, SysTime: 2750 * time.Millisecond}, th)
	require.Equal(t, 4250*time.Millisecond, th.CPUTime())
	th, err = ParseStat("7 (a) b) (c) R 1 2 3 4 5 6 7 8 9 10 1 2")
	require.NoError(t, err)
	require.Equal(t, "a) b) (c", th.Comm)
	require.Equal(t, 10*time.Millisecond, th.UserTime)
	for _, bad := range []string{"", "7 (x", "x (y) R 1", "7 (y) R 1 2", "7 (y) R 1 2 3 4 5 6 7 8 9 10 u s"} {
		_, err := ParseStat(bad)
		require.Error(t, err, bad)
	}
}
