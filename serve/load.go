package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Dial opens a Flight SQL client to a rigel server (or any Flight SQL
// server): token, when set, goes with every call as a bearer token; tlsCfg,
// when set, secures the connection.
func Dial(addr, token string, tlsCfg *tls.Config) (*flightsql.Client, error) {
	creds := insecure.NewCredentials()
	if tlsCfg != nil {
		creds = credentials.NewTLS(tlsCfg)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds), grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1 << 30))}
	if token != "" {
		opts = append(opts,
			grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, o ...grpc.CallOption) error {
				return inv(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token), method, req, reply, cc, o...)
			}),
			grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, o ...grpc.CallOption) (grpc.ClientStream, error) {
				return s(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token), desc, cc, method, o...)
			}))
	}
	return flightsql.NewClient(addr, nil, nil, opts...)
}

// Fetch reads every endpoint of a FlightInfo into one record.
func Fetch(ctx context.Context, c *flightsql.Client, info *flight.FlightInfo) (arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var schema *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return nil, err
		}
		schema = rdr.Schema()
		for rdr.Next() {
			r := rdr.RecordBatch()
			r.Retain()
			recs = append(recs, r)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, err
		}
	}
	if schema == nil {
		return nil, errors.New("the FlightInfo has no endpoint")
	}
	return arrowrec.Concat(schema, recs)
}

// LoadQuery is one query of a load test and its expected answer.
type LoadQuery struct {
	Name string
	SQL  string
	Want arrow.RecordBatch
}

// LoadOptions shape a load test.
type LoadOptions struct {
	Addr      string
	Token     string
	TLS       *tls.Config
	Clients   int // concurrent clients, each with its own connection
	PerClient int // queries each client runs, cycling through Queries
	// Duration, when set, runs each client for that long instead of
	// PerClient queries.
	Duration time.Duration
	Queries  []LoadQuery
	// Hostile requests mixed into the good ones: each client sends the
	// next probe after every HostileEvery good queries (default 3), and
	// each must be refused with its code.
	Hostile      []Probe
	HostileEvery int
	Timeout      time.Duration // the whole run's bound (default 10 minutes)
}

// A Probe is a request a hostile or careless client sends, and the gRPC
// code the server must refuse it with.
type Probe struct {
	Name string
	Want codes.Code
	Send func(ctx context.Context, c *flightsql.Client) error
}

// LoadReport is what a load test measured: good queries (Queries, of
// which Errors failed and Wrong gave another answer than DuckDB's) and
// hostile probes (Probes, of which Taken were not refused as they must).
type LoadReport struct {
	Clients, Queries int
	Errors, Wrong    int
	Probes, Taken    int
	FirstProblem     string
	Elapsed          time.Duration
	P50, P99, Max    time.Duration
}

// QPS is the queries per second of the run.
func (r *LoadReport) QPS() float64 { return float64(r.Queries) / r.Elapsed.Seconds() }

func (r *LoadReport) String() string {
	s := fmt.Sprintf("%d clients, %d queries: %d errors, %d wrong; %.1f queries/s, latency p50 %s, p99 %s, max %s",
		r.Clients, r.Queries, r.Errors, r.Wrong, r.QPS(), r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond))
	if r.Probes > 0 {
		s += fmt.Sprintf("; %d hostile requests, %d not refused as they must be", r.Probes, r.Taken)
	}
	if r.FirstProblem != "" {
		s += "; first problem: " + r.FirstProblem
	}
	return s
}

// RunLoad runs a load test: Clients clients at once, each running
// PerClient queries or for Duration (client i starts at query i, so that
// all queries run at once), every answer compared with the expected one
// (as multisets of rows: ORDER BY ties may come in any order), hostile
// probes among them.
func RunLoad(ctx context.Context, o LoadOptions) (*LoadReport, error) {
	if o.Clients <= 0 || (o.PerClient <= 0 && o.Duration <= 0) || len(o.Queries) == 0 {
		return nil, errors.New("load test: clients, queries per client (or a duration) and the query list must be given")
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.HostileEvery <= 0 {
		o.HostileEvery = 3
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	rep := &LoadReport{Clients: o.Clients}
	var mu sync.Mutex
	var lat []time.Duration
	problem := func(counter *int, msg string) {
		mu.Lock()
		defer mu.Unlock()
		*counter++
		if rep.FirstProblem == "" {
			rep.FirstProblem = msg
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for ci := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Dial(o.Addr, o.Token, o.TLS)
			if err != nil {
				problem(&rep.Errors, err.Error())
				return
			}
			defer c.Close()
			mine := make([]time.Duration, 0, max(o.PerClient, 16))
			probes := 0
			for k := 0; ; k++ {
				if o.Duration > 0 && time.Since(start) >= o.Duration || o.Duration <= 0 && k >= o.PerClient || ctx.Err() != nil {
					break
				}
				if len(o.Hostile) > 0 && k%o.HostileEvery == o.HostileEvery-1 {
					p := o.Hostile[(ci+probes)%len(o.Hostile)]
					probes++
					err := p.Send(ctx, c)
					if code := status.Code(err); err == nil || code != p.Want {
						problem(&rep.Taken, fmt.Sprintf("hostile %s: got %v (%s), want %s", p.Name, err, code, p.Want))
					}
				}
				q := o.Queries[(ci+k)%len(o.Queries)]
				t0 := time.Now()
				got, err := runQuery(ctx, c, q.SQL)
				mine = append(mine, time.Since(t0))
				if err != nil {
					problem(&rep.Errors, q.Name+": "+err.Error())
					continue
				}
				if err := arrowfmt.Compare(got, q.Want, false); err != nil {
					problem(&rep.Wrong, q.Name+": "+err.Error())
				}
				got.Release()
			}
			mu.Lock()
			lat = append(lat, mine...)
			rep.Probes += probes
			mu.Unlock()
		}()
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.Queries = len(lat)
	if len(lat) > 0 {
		slices.Sort(lat)
		rep.P50 = lat[len(lat)/2]
		rep.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
		rep.Max = lat[len(lat)-1]
	}
	return rep, ctx.Err()
}

func runQuery(ctx context.Context, c *flightsql.Client, query string) (arrow.RecordBatch, error) {
	info, err := c.Execute(ctx, query)
	if err != nil {
		return nil, err
	}
	return Fetch(ctx, c, info)
}

// LiveMemory returns this process's goroutines and live heap once the
// clients' idle connections have closed and a collection has run: what a
// load must give back (rigel bench serve reports it before and after).
func LiveMemory() (goroutines int, heap uint64) {
	time.Sleep(500 * time.Millisecond)
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}
