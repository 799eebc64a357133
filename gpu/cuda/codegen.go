package cuda

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// pipelineSource generates the CUDA source of a pipeline (dictLen: the
// dictionary size of each input, used by the aggregate's domain strategy).
func pipelineSource(p *gpu.Pipeline, dictLen []int) (string, error) {
	switch p.Sink {
	case gpu.SinkMaterialize:
		return materializeSource(p)
	case gpu.SinkAggregate:
		ap, err := planAggregate(p, dictLen)
		if err != nil {
			return "", err
		}
		return aggregateSource(ap)
	}
	return "", fmt.Errorf("sink %d: %w", p.Sink, gpu.ErrUnsupported)
}
