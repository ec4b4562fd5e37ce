//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// Commands on block devices: IORING_OP_URING_CMD with a BLOCK_URING_CMD_*
// cmd_op on a block device fd (Linux 6.12). Before 6.12 a block device has
// no commands and the CQE says EOPNOTSUPP; a 6.12 kernel answers EINVAL to
// a command it does not know. Block devices have no polled commands: on an
// IOPOLL ring every one completes with EOPNOTSUPP.

// blockSector is the smallest logical block size: a byte range of a block
// command must be a multiple of the device's, so at least of this.
const blockSector = 512

// CmdDiscard prepares a discard of n bytes at byte offset off of the block
// device fd, the asynchronous form of ioctl(BLKDISCARD):
// io_uring_prep_cmd_discard(3), IORING_OP_URING_CMD with
// BLOCK_URING_CMD_DISCARD, Linux 6.12. off and n are multiples of the
// device's logical block size (this builder checks 512, the kernel the
// device's own: EINVAL), n > 0, and the range lies inside the device
// (EINVAL). The fd must be open for writing (EBADF) on a writable device
// (EPERM); a device without discard support (queue/discard_max_bytes 0:
// null_blk unless loaded with discard=1) answers EOPNOTSUPP. What the range
// reads as afterwards is the device's business: zeros on a loop device
// over a file (a hole) and on null_blk (freed memory), not on every disk.
// Like BLKDISCARD it does not order itself against other requests on the
// range and drops the range from the page cache only as far as it can.
// No memory is held.
func CmdDiscard(s *sys.SQE, fd int, off, n int64) error {
	const fn = "CmdDiscard"
	if err := firstErr(checkFd(fn, "fd", fd), checkNonNeg(fn, "off", off)); err != nil {
		return err
	}
	switch {
	case n <= 0:
		return argErr(fn, "n", "= "+strconv.FormatInt(n, 10)+" is not positive")
	case off%blockSector != 0:
		return argErr(fn, "off", "= "+strconv.FormatInt(off, 10)+" is not a multiple of 512 (the logical block size at least)")
	case n%blockSector != 0:
		return argErr(fn, "n", "= "+strconv.FormatInt(n, 10)+" is not a multiple of 512 (the logical block size at least)")
	case off > 1<<63-1-n:
		return argErr(fn, "n", "= "+strconv.FormatInt(n, 10)+": off+n overflows")
	}
	prep(s, sys.OpUringCmd, fd, uint64(off), 0, uint64(sys.BlockURingCmdDiscard))
	s.Addr3 = uint64(n)
	return nil
}

// CmdZoneResetAll prepares a reset of every sequential-write-required zone
// of the zoned block device fd (the write pointers go back to the zones'
// starts): io_uring_prep_cmd_zone_reset_all(3), IORING_OP_URING_CMD with
// BLOCK_URING_CMD_ZONE_RESET_ALL, Linux 7.3 (older kernels answer EINVAL;
// before 6.12, EOPNOTSUPP). The fd must be open for writing (EBADF); a
// device that is not zoned answers EOPNOTSUPP. It does not order itself
// against other requests on the device. No memory is held.
func CmdZoneResetAll(s *sys.SQE, fd int) error {
	if err := checkFd("CmdZoneResetAll", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpUringCmd, fd, 0, 0, uint64(sys.BlockURingCmdZoneResetAll))
	return nil
}
