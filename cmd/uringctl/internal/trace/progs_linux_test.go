//go:build linux

package trace

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/stretchr/testify/require"
)

// loadsFromCtx lists the (offset, size) of every load from the trace entry.
func loadsFromCtx(insns asm.Instructions) [][2]int {
	var out [][2]int
	for _, in := range insns {
		if in.OpCode.Class() == asm.LdXClass && in.Src == asm.R6 {
			out = append(out, [2]int{int(in.Offset), in.OpCode.Size().Sizeof()})
		}
	}
	return out
}

// The programs read fields where the format file puts them, so a kernel
// that moves a field keeps working.
func TestProgramsFollowFormatOffsets(t *testing.T) {
	moved := strings.NewReplacer(
		"offset:16;\tsize:8", "offset:48;\tsize:8", // req
		"offset:32;\tsize:4", "offset:64;\tsize:4", // res
		"offset:36;\tsize:4", "offset:68;\tsize:4", // cflags
	).Replace(completeFormat)
	f, err := parseFormat(strings.NewReader(moved))
	require.NoError(t, err)
	insns, err := progComplete(f, 0)
	require.NoError(t, err)
	require.Equal(t, [][2]int{{48, 8}, {64, 4}, {68, 4}}, loadsFromCtx(insns))

	delete(f.Fields, "cflags")
	_, err = progComplete(f, 0)
	require.ErrorContains(t, err, `no field "cflags"`)
}

// Before 5.19 io_uring_complete has no request pointer: the programs key
// requests by ring and user_data, loading both.
func TestProgramsKeyByUserDataWithoutReq(t *testing.T) {
	f, err := parseFormat(strings.NewReader(completeFormat))
	require.NoError(t, err)
	delete(f.Fields, "req")
	_, err = progComplete(f, 0)
	require.ErrorContains(t, err, `no field "req"`)
	f.byUserData = true
	insns, err := progComplete(f, 0)
	require.NoError(t, err)
	ctx, ud := f.Fields["ctx"], f.Fields["user_data"]
	require.Equal(t, [][2]int{{ctx.Offset, 8}, {ud.Offset, 8}}, loadsFromCtx(insns)[:2])
}

func TestPidFilterIsCompiledIn(t *testing.T) {
	f, err := parseFormat(strings.NewReader(completeFormat))
	require.NoError(t, err)
	f.Fields["opcode"] = field{Name: "opcode", Offset: 44, Size: 1}
	for _, pid := range []uint32{0, 4242} {
		insns, err := progSubmit(f, slotSubmits, pid)
		require.NoError(t, err)
		found := false
		for _, in := range insns {
			found = found || (in.OpCode.JumpOp() == asm.JNE && in.Dst == asm.R7 && in.Constant == int64(pid))
		}
		require.Equal(t, pid != 0, found, "pid %d", pid)
	}
}

func TestCapsError(t *testing.T) {
	require.NoError(t, capsError(1<<capSysAdmin, 0))
	require.NoError(t, capsError(1<<capBPF|1<<capPerfmon, 1000))
	err := capsError(1<<capBPF, 1000)
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "uid 1000) lacks CAP_PERFMON:")
	err = capsError(0, 65534)
	require.ErrorContains(t, err, "lacks CAP_BPF and CAP_PERFMON")
}
