package sys

import (
	"go/constant"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUAPIParser checks the header reader on a made-up header that uses
// every construct it knows, so that TestUAPIHeader's verdicts rest on a
// reader that is itself tested (and runs where no header is installed).
func TestUAPIParser(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "io_uring"), 0o755))
	main := `/* comment */
#ifndef GUARD_H
#define GUARD_H
#include <linux/types.h>
#include <linux/io_uring/sub.h>
#ifdef __cplusplus
extern "C" {
#define NOT_C 1
#endif
#define A_SHIFT		(1U << 3)	// a comment
#define A_MASK		(A_SHIFT | (1U << 0))
#define ALL_ONES	(~0U)
#define MINUS_TWO	(-2)
#define HIGH		(~(((__u64)1 << 48) - 1))
#define CAST		((__u32)1 << B_TWO)
#define BIG		0x80000000ULL
#define FN(x)		((x) + 1)
#define USES_LATER	(LATER + 1)
enum { B_ZERO, B_ONE, B_TEN = 10, B_ELEVEN, };
enum named { B_TWO = 2, B_TOP = 1U << 31 };
#define LATER		B_TEN
struct inner { __u32 a; __u64 b; };
struct outer {
	__u8	x;
	union {
		__u16	u16;
		__u32	u32;
	} __attribute__((packed));
	struct inner	in;
	struct {
		__be16	port;
		__u8	pad[2];
	} named;
	__u32	arr[3], single;
	union {
		struct { __u64 a3; __u64 p2[1]; };
		__u8	cmd[0];
	};
	__DECLARE_FLEX_ARRAY(struct inner, tail);
};
struct packed_tail { __u16 h; union { __u8 b; __u16 w; } __attribute__((packed)) u; };
#ifdef __cplusplus
}
#endif
#endif
`
	sub := `struct sub_s { __u64 v; };
#define SUB_C 7
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "io_uring.h"), []byte(main), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "io_uring", "sub.h"), []byte(sub), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "io_uring", "extra.h"), []byte("#define EXTRA 3\n"), 0o644))

	h, err := readUAPI(filepath.Join(dir, "io_uring.h"))
	require.NoError(t, err)
	require.Equal(t, []string{"io_uring.h", "io_uring/sub.h", "io_uring/extra.h"}, h.files)
	want := map[string]constant.Value{
		"A_SHIFT": constant.MakeUint64(8), "A_MASK": constant.MakeUint64(9),
		"ALL_ONES": constant.MakeUint64(0xffffffff), "MINUS_TWO": constant.MakeInt64(-2),
		"HIGH": constant.MakeUint64(0xffff000000000000), "CAST": constant.MakeUint64(4),
		"BIG": constant.MakeUint64(0x80000000), "USES_LATER": constant.MakeInt64(11),
		"B_ZERO": constant.MakeInt64(0), "B_ONE": constant.MakeInt64(1), "B_TEN": constant.MakeInt64(10),
		"B_ELEVEN": constant.MakeInt64(11), "B_TWO": constant.MakeInt64(2), "B_TOP": constant.MakeUint64(1 << 31),
		"LATER": constant.MakeInt64(10), "SUB_C": constant.MakeInt64(7), "EXTRA": constant.MakeInt64(3),
	}
	for n, v := range want {
		c, ok := h.consts[n]
		require.True(t, ok, "%s missing", n)
		require.True(t, constant.Compare(c.val, token.EQL, v), "%s = %v, want %v", n, c.val, v)
	}
	for _, n := range []string{"NOT_C", "FN", "GUARD_H"} {
		require.NotContains(t, h.consts, n)
	}
	require.Len(t, h.consts, len(want))
	require.Equal(t, []string{"B_TWO", "B_TOP"}, h.enums["named"])

	o := h.structs["outer"]
	require.NotNil(t, o)
	type L struct {
		name      string
		off, size int
		flex      bool
		typ       string
	}
	var got []L
	for _, l := range o.leaves {
		got = append(got, L{l.name, l.off, l.size, l.flex, l.structTyp})
	}
	require.Equal(t, []L{
		{"x", 0, 1, false, ""},
		{"u16", 1, 2, false, ""}, {"u32", 1, 4, false, ""}, // packed union: no padding before it
		{"in", 8, 16, false, "inner"},
		{"named.port", 24, 2, false, ""}, {"named.pad", 26, 2, false, ""},
		{"arr", 28, 12, false, ""}, {"single", 40, 4, false, ""},
		{"a3", 48, 8, false, ""}, {"p2", 56, 8, false, ""}, {"cmd", 48, 0, true, ""},
		{"tail", 64, 0, true, "inner"},
	}, got)
	require.Equal(t, 64, o.size)
	require.Equal(t, 8, o.align)
	p := h.structs["packed_tail"]
	require.Equal(t, 4, p.size)
	require.Equal(t, 2, p.align)
	require.Equal(t, 8, h.structs["sub_s"].size)

	// What it cannot read, it says.
	for _, bad := range []string{
		"struct s { float f; };\n",
		"#define X (UNKNOWN + 1)\n",
		"typedef int myint;\n",
		"#if 1\n",
		"#warning hi\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.h"), []byte(bad), 0o644))
		_, err := readUAPI(filepath.Join(dir, "bad.h"))
		require.Error(t, err, "%q", bad)
	}
}

func TestKernelRelease(t *testing.T) {
	for v, want := range map[string]string{"7.3.4-1~bpo13+1": "7.3", "6.1.187-1": "6.1", "6.12": "6.12", "7.0.0-44.44": "7.0"} {
		got, err := kernelRelease(v)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := kernelRelease("x")
	require.Error(t, err)
}
