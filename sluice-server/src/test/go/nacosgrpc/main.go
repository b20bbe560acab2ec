// Command nacosgrpc is a dumb grpc-go client for GrpcGoClientIT: it moves Nacos Payload bytes
// between a line protocol on stdin/stdout and the two Nacos gRPC methods, so the stack under test
// is grpc-go's (the one nacos-sdk-go runs on) while the Java test composes and checks every
// message. It dials insecure, with grpc-go's own headers (te: trailers, user-agent grpc-go/...,
// grpc-timeout from each unary call's deadline).
//
// Usage: nacosgrpc HOST:PORT. Lines in (base64 is standard, padded):
//
//	unary ID BASE64   -> "unary ID BASE64" with the response, or "error ID CODE MESSAGE"
//	open BASE64       opens /BiRequestStream/requestBiStream and sends BASE64 as its first message
//	send BASE64       sends one more message on the stream
//	close             half-closes the stream, closes the channel and exits 0 (as does EOF)
//
// Every message the server sends on the stream is printed as "push BASE64"; the stream's end as
// "streamend CODE MESSAGE".
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
)

// rawCodec passes []byte through; named "proto" so it replaces grpc-go's default codec and the
// content-type stays the plain "application/grpc" every Nacos SDK sends.
type rawCodec struct{}

func (rawCodec) Marshal(v interface{}) ([]byte, error) { return *(v.(*[]byte)), nil }

func (rawCodec) Unmarshal(data []byte, v interface{}) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

var (
	out   = bufio.NewWriter(os.Stdout)
	outMu sync.Mutex
)

func say(format string, args ...interface{}) {
	outMu.Lock()
	defer outMu.Unlock()
	fmt.Fprintf(out, format+"\n", args...)
	out.Flush()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: nacosgrpc HOST:PORT")
		os.Exit(2)
	}
	encoding.RegisterCodec(rawCodec{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	conn, err := grpc.DialContext(ctx, os.Args[1], grpc.WithInsecure(), grpc.WithBlock())
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		os.Exit(1)
	}
	defer conn.Close()

	bidi := &grpc.StreamDesc{StreamName: "requestBiStream", ClientStreams: true, ServerStreams: true}
	var stream grpc.ClientStream
	var streamDone chan struct{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		words := strings.Fields(in.Text())
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "unary":
			id, msg := words[1], decode(words[2])
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var reply []byte
			err := conn.Invoke(ctx, "/Request/request", &msg, &reply)
			cancel()
			if err != nil {
				s := status.Convert(err)
				say("error %s %s %s", id, s.Code(), s.Message())
			} else {
				say("unary %s %s", id, base64.StdEncoding.EncodeToString(reply))
			}
		case "open":
			s, err := conn.NewStream(context.Background(), bidi, "/BiRequestStream/requestBiStream")
			if err != nil {
				fmt.Fprintln(os.Stderr, "open:", err)
				os.Exit(1)
			}
			stream = s
			streamDone = make(chan struct{})
			go receive(stream, streamDone)
			sendOn(stream, decode(words[1]))
		case "send":
			sendOn(stream, decode(words[1]))
		case "close":
			finish(stream, streamDone)
			return
		default:
			fmt.Fprintln(os.Stderr, "unknown command:", words[0])
			os.Exit(2)
		}
	}
	finish(stream, streamDone)
}

func receive(stream grpc.ClientStream, done chan struct{}) {
	defer close(done)
	for {
		var msg []byte
		if err := stream.RecvMsg(&msg); err != nil {
			s := status.Convert(err)
			say("streamend %s %s", s.Code(), s.Message())
			return
		}
		say("push %s", base64.StdEncoding.EncodeToString(msg))
	}
}

func sendOn(stream grpc.ClientStream, msg []byte) {
	if stream == nil {
		fmt.Fprintln(os.Stderr, "send before open")
		os.Exit(2)
	}
	if err := stream.SendMsg(&msg); err != nil {
		fmt.Fprintln(os.Stderr, "send:", err)
		os.Exit(1)
	}
}

func finish(stream grpc.ClientStream, done chan struct{}) {
	if stream == nil {
		return
	}
	stream.CloseSend()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

func decode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad base64:", err)
		os.Exit(2)
	}
	return b
}
