package sys

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The block commands are _IO(0x12, nr): no direction, no size, so the
// number is type<<8 | nr (asm-generic ioctl.h, the layout of amd64, arm64
// and riscv64).
func TestBlockURingCmds(t *testing.T) {
	io := func(typ, nr uint32) uint32 { return typ<<8 | nr }
	require.Equal(t, io(0x12, 0), BlockURingCmdDiscard)
	require.Equal(t, io(0x12, 1), BlockURingCmdZoneResetAll)
	require.Equal(t, uint32(0x1200), BlockURingCmdDiscard)
}
