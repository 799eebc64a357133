package cuda

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// pipelineSource generates the CUDA source of a pipeline (dictLen: the
// dictionary size of each input, used by the aggregate's domain strategy)
// whose inputs are plain.
func pipelineSource(p *gpu.Pipeline, dictLen []int) (string, error) {
	return packedPipelineSource(p, dictLen, nil)
}

// packedPipelineSource is pipelineSource for a kernel whose inputs packed
// arrive packed.
func packedPipelineSource(p *gpu.Pipeline, dictLen []int, packed packedInputs) (string, error) {
	switch p.Sink {
	case gpu.SinkMaterialize:
		return materializeSource(p, packed)
	case gpu.SinkAggregate:
		ap, err := planAggregate(p, dictLen)
		if err != nil {
			return "", err
		}
		ap.packed = packed
		return aggregateSource(ap)
	}
	return "", fmt.Errorf("sink %d: %w", p.Sink, gpu.ErrUnsupported)
}
