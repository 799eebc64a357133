package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// A client is one gRPC connection: Flight SQL has no login session, and a
// client's prepared statements live as long as its connection. Each
// connection gets an id when it opens (connTracker.TagConn, whose context
// every call on the connection inherits); the statements it prepared go
// when it closes, and no other connection can see, run or close them.
type clientID int64

type clientKey struct{}

var clientSeq atomic.Int64

func clientOf(ctx context.Context) clientID {
	id, _ := ctx.Value(clientKey{}).(clientID)
	return id
}

// connTracker is the server's gRPC stats handler: it names connections and
// frees their prepared statements when they close.
type connTracker struct{ p *preparedStatements }

func (c connTracker) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return context.WithValue(ctx, clientKey{}, clientID(clientSeq.Add(1)))
}

func (c connTracker) HandleConn(ctx context.Context, s stats.ConnStats) {
	if _, ok := s.(*stats.ConnEnd); ok {
		c.p.dropClient(clientOf(ctx))
	}
}

func (connTracker) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (connTracker) HandleRPC(context.Context, stats.RPCStats)                       {}

// prepared is an open prepared statement.
type prepared struct {
	st     statement
	schema *arrow.Schema
}

// preparedStatements holds the open prepared statements, per client,
// within two bounds: per client, so that one client cannot take the slots
// every client shares, and in all, so that many clients cannot fill
// memory.
type preparedStatements struct {
	mu                sync.Mutex
	byClient          map[clientID]map[string]*prepared
	total             int
	max, maxPerClient int
}

func newPreparedStatements(max, maxPerClient int) *preparedStatements {
	return &preparedStatements{byClient: map[clientID]map[string]*prepared{}, max: max, maxPerClient: maxPerClient}
}

func newHandle() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return hex.EncodeToString(b)
}

func (ps *preparedStatements) add(c clientID, p *prepared) (string, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	mine := ps.byClient[c]
	if len(mine) >= ps.maxPerClient {
		return "", status.Errorf(codes.ResourceExhausted, "rigel serve: this connection has %d prepared statements open, the most one client may hold; close some (ClosePreparedStatement) before preparing more", len(mine))
	}
	if ps.total >= ps.max {
		return "", status.Errorf(codes.ResourceExhausted, "rigel serve: the server holds %d prepared statements, the most it takes from all clients; try again once other clients close theirs", ps.total)
	}
	if mine == nil {
		mine = map[string]*prepared{}
		ps.byClient[c] = mine
	}
	h := newHandle()
	mine[h] = p
	ps.total++
	return h, nil
}

var errNoPrepared = status.Error(codes.NotFound, "rigel serve: no such prepared statement on this connection (closed, prepared on another connection, or the server restarted)")

func (ps *preparedStatements) get(c clientID, handle []byte) (*prepared, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.byClient[c][string(handle)]
	if !ok {
		return nil, errNoPrepared
	}
	return p, nil
}

func (ps *preparedStatements) close(c clientID, handle []byte) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	mine := ps.byClient[c]
	if _, ok := mine[string(handle)]; !ok {
		return errNoPrepared
	}
	delete(mine, string(handle))
	ps.total--
	if len(mine) == 0 {
		delete(ps.byClient, c)
	}
	return nil
}

func (ps *preparedStatements) dropClient(c clientID) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.total -= len(ps.byClient[c])
	delete(ps.byClient, c)
}

// count returns the statements open in all and for client c.
func (ps *preparedStatements) count(c clientID) (total, client int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.total, len(ps.byClient[c])
}

func (ps *preparedStatements) clear() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	clear(ps.byClient)
	ps.total = 0
}
