// The multipart/form-data bodies (RFC 7578, RFC 2046 §5.1) of the bot-upload form: finding the
// boundary in the request's Content-Type, locating each part's content in the body, and reading
// or copying one part out. The HTTP server streams a body to a file on disk under a size cap and
// never holds it whole, so everything here works on that file through a bounded window read
// with pread: memory stays fixed and time linear in the body's size, whatever a stranger or a
// fuzzer sends. A malformed body gives a sentence a person can act on, never an offset outside
// the body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allfives::referee::serve {

struct FormPart {
  std::string name;          // Content-Disposition's name= (the form field)
  std::string filename;      // its filename= as sent ("" for a plain field; may hold anything)
  std::string content_type;  // the part's Content-Type, "" if none
  uint64_t offset = 0;       // where its content starts in the body
  uint64_t size = 0;         // its content's length (the CRLF before the next delimiter excluded)
};

// The boundary of a Content-Type header value "multipart/form-data; boundary=XYZ" (case-insensitive
// media type and parameter name, the value possibly quoted, other parameters allowed); false if it
// is not multipart/form-data or the boundary is missing, repeated, empty, longer than 70 characters
// or holds characters RFC 2046 does not allow.
bool multipart_boundary(std::string_view content_type, std::string& boundary);

// Parses the body in the open file `fd` (its first `size` bytes). Fills `parts` in order and
// returns "", or empties `parts` and returns what is wrong in words a person can act on ("the body
// ends before its closing boundary", "part 3 has no Content-Disposition name", "more than 16
// parts", "part 2's headers exceed 8 KiB", ...; parts count from 1, and no text of the body is
// echoed). Rules: the preamble before the first "--boundary" line is ignored; each delimiter is
// CRLF "--" boundary (the first may lack the leading CRLF when it starts the body), followed by
// optional linear whitespace and CRLF; the close delimiter is "--" boundary "--"; the epilogue
// after it is ignored. Part headers end at the first empty line, the header lines at most 8 KiB all
// together per part; header names case-insensitive, folded lines joined; Content-Disposition must
// be form-data with a non-empty name parameter (quoted-string with backslash escapes, or a token);
// filename parameter optional (filename*= ignored); a repeated parameter or header is refused. At
// most `max_parts` parts. Missing closing delimiter = error. The name, filename and content type
// are the raw bytes sent: the caller checks them before using or showing them.
std::string parse_multipart(int fd, uint64_t size, std::string_view boundary, size_t max_parts,
                            std::vector<FormPart>& parts);

// The content of a small part (a text field): false if it is longer than `limit` bytes or
// cannot be read (then `out` is unchanged).
bool read_part(int fd, const FormPart& part, size_t limit, std::string& out);

// Copies a part's content into a new file `path` (created with O_CREAT|O_EXCL|O_NOFOLLOW, mode
// 0600, by chunks, fsync'd). Returns "" or why not (with errno's text); a file it created is
// removed again when the copy fails.
std::string copy_part(int fd, const FormPart& part, const std::string& path);

}  // namespace allfives::referee::serve
