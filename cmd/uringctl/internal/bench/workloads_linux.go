//go:build linux

package bench

var runners = map[string]func(*Config) ([]Point, error){
	"nop":        runNop,
	"randread":   runRandread,
	"files":      runFiles,
	"tcprecv":    runTCPRecv,
	"http":       runHTTP,
	"http-std":   runHTTPStd,
	"serve-file": runServeFile,
	"echo":       runEcho,
	"spawn":      runSpawn,
	"switch":     runSwitch,
	"channel":    runChannel,
	"chain":      runChain,
	"collect":    runCollect,
	"overhead":   runOverhead,
}
