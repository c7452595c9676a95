package impl

import (
	"context"
	"fmt"
	"net/http"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/openapi"
)

// GetOpenAPIDocument serves the embedded document as JSON, converted once at first use.
func (s *Server) GetOpenAPIDocument(ctx context.Context, _ api.GetOpenAPIDocumentRequestObject) (api.GetOpenAPIDocumentResponseObject, error) {
	b, err := openapi.JSON()
	if err != nil {
		return nil, fmt.Errorf("serving the OpenAPI document: %w", err)
	}
	return rawDocument(b), nil
}

// rawDocument writes bytes that are already JSON, instead of decoding the document into the generated model
// only to encode it again.
type rawDocument []byte

func (d rawDocument) VisitGetOpenAPIDocumentResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(d)
	return err
}
