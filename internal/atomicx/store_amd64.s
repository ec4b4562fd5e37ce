//go:build amd64 && !race

#include "textflag.h"

// func StoreRelease32(addr *uint32, v uint32)
TEXT ·StoreRelease32(SB), NOSPLIT, $0-12
	MOVQ addr+0(FP), AX
	MOVL v+8(FP), BX
	MOVL BX, (AX)
	RET
