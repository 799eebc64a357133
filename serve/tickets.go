package serve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A statement is what a ticket or a prepared statement carries: SQL text or
// Substrait plan bytes.
type statement struct {
	substrait bool
	body      []byte
}

const (
	kindSQL       = 'q'
	kindSubstrait = 's'
)

// Tickets carry the statement itself (one kind byte, the text or plan) so
// that the server keeps no state between GetFlightInfo and DoGet and a
// client that never calls DoGet leaks nothing. A ticket is signed with a
// key only this server process knows (HMAC-SHA256 over kind and body,
// appended): DoGet runs only what this server checked and planned, and a
// ticket a client wrote itself ("SET memory_limit=...", "DROP VIEW ...")
// is refused before anything reads it. A restart makes old tickets
// invalid, as it does prepared statements.
type ticketSigner struct {
	key [32]byte
}

func newTicketSigner() *ticketSigner {
	var s ticketSigner
	_, _ = rand.Read(s.key[:]) // crypto/rand never fails on Linux
	return &s
}

func (s *ticketSigner) mac(kind byte, body []byte) []byte {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte{kind})
	m.Write(body)
	return m.Sum(nil)
}

func (s *ticketSigner) ticket(st statement) []byte {
	kind := byte(kindSQL)
	if st.substrait {
		kind = kindSubstrait
	}
	t := make([]byte, 0, 1+len(st.body)+sha256.Size)
	t = append(t, kind)
	t = append(t, st.body...)
	return append(t, s.mac(kind, st.body)...)
}

var errForeignTicket = status.Error(codes.PermissionDenied, "rigel serve: the ticket was not made by this server process (get tickets from GetFlightInfo; tickets from before a restart are no longer valid)")

func (s *ticketSigner) parse(t []byte) (statement, error) {
	if len(t) < 1+sha256.Size || (t[0] != kindSQL && t[0] != kindSubstrait) {
		return statement{}, errForeignTicket
	}
	kind, body, sum := t[0], t[1:len(t)-sha256.Size], t[len(t)-sha256.Size:]
	if !hmac.Equal(sum, s.mac(kind, body)) {
		return statement{}, errForeignTicket
	}
	return statement{substrait: kind == kindSubstrait, body: body}, nil
}
