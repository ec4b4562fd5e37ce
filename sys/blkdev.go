package sys

// Block device commands (include/uapi/linux/blkdev.h, not io_uring.h): the
// cmd_op of IORING_OP_URING_CMD on a block device, a number space of its
// own that reuses the block ioctls' type 0x12 (_IO(0x12, nr)).
const (
	// BlockURingCmdDiscard discards a byte range (sqe.CmdDiscard).
	BlockURingCmdDiscard uint32 = 0x12<<8 | 0 // BLOCK_URING_CMD_DISCARD [6.12]
	// BlockURingCmdZoneResetAll resets every sequential-write-required
	// zone of a zoned device (sqe.CmdZoneResetAll); in linux/blkdev.h
	// from 7.3 (7.2's header lacks it).
	BlockURingCmdZoneResetAll uint32 = 0x12<<8 | 1 // BLOCK_URING_CMD_ZONE_RESET_ALL [7.3]
)
