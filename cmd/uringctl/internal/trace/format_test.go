package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const completeFormat = `name: io_uring_complete
ID: 2141
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:void * ctx;	offset:8;	size:8;	signed:0;
	field:void * req;	offset:16;	size:8;	signed:0;
	field:u64 user_data;	offset:24;	size:8;	signed:0;
	field:int res;	offset:32;	size:4;	signed:1;
	field:unsigned cflags;	offset:36;	size:4;	signed:0;
	field:char comm[16];	offset:40;	size:16;	signed:0;
	field:__data_loc char[] op_str;	offset:56;	size:4;	signed:0;
	some future line: 1

print fmt: "ring %p, req %p", REC->ctx, REC->req
`

func TestParseFormat(t *testing.T) {
	f, err := parseFormat(strings.NewReader(completeFormat))
	require.NoError(t, err)
	require.Equal(t, "io_uring_complete", f.Event)
	require.Equal(t, 2141, f.ID)
	require.Equal(t, field{Name: "req", Type: "void *", Offset: 16, Size: 8}, f.Fields["req"])
	require.Equal(t, field{Name: "res", Type: "int", Offset: 32, Size: 4, Signed: true}, f.Fields["res"])
	require.Equal(t, field{Name: "comm", Type: "char [16]", Offset: 40, Size: 16}, f.Fields["comm"])
	require.Equal(t, field{Name: "op_str", Type: "__data_loc char[]", Offset: 56, Size: 4}, f.Fields["op_str"])

	_, err = f.need("opcode", 1)
	require.ErrorContains(t, err, `io_uring_complete has no field "opcode"`)
	_, err = f.need("comm", 8)
	require.ErrorContains(t, err, "field comm has size 16")
}

func TestParseFormatRejects(t *testing.T) {
	for _, in := range []string{
		"",
		"name: x\nID: y\n",
		"name: x\n\tfield:int a;\toffset:zz;\tsize:4;\tsigned:1;\n",
		"name: x\n\tfield:int a;\tsize:4;\tsigned:1;\n",
		"name: x\n\tfield:;\toffset:0;\tsize:4;\tsigned:1;\n",
	} {
		_, err := parseFormat(strings.NewReader(in))
		require.Error(t, err, "input %q", in)
	}
}

func TestLatencyOf(t *testing.T) {
	hist := make([]uint64, HistBuckets)
	hist[0] = 1   // [0, 2)
	hist[10] = 98 // [1024, 2048)
	hist[HistBuckets-1] = 1
	l := latencyOf(100, 100000, hist)
	require.Equal(t, uint64(1000), l.MeanNs)
	require.Equal(t, []Bucket{{0, 2, 1}, {1024, 2048, 98}, {1 << 39, 1<<63 - 1, 1}}, l.Buckets)
	require.Equal(t, uint64(2048), l.P50Ns)
	require.Equal(t, uint64(2048), l.P99Ns)
	require.Equal(t, uint64(1<<63-1), l.MaxNs)

	require.Equal(t, Latency{}, latencyOf(0, 0, make([]uint64, HistBuckets)))
}
