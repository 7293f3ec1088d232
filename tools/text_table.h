// tools/text_table.h: a plain aligned text table for the tensorcast program's output.
//
//   TextTable table({{"type", TextTable::kLeft}, {"GB/s", TextTable::kRight}});
//   table.AddRow({"FLOAT16", "12.3"});
//   table.Print(stdout);
#ifndef TENSORCAST_TOOLS_TEXT_TABLE_H_
#define TENSORCAST_TOOLS_TEXT_TABLE_H_

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace tensorcast {
namespace cli {

class TextTable {
 public:
  enum Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // Cells beyond the number of columns are ignored; missing cells are empty.
  void AddRow(std::vector<std::string> cells) {
    cells.resize(columns_.size());
    rows_.push_back(std::move(cells));
  }

  void Print(FILE* out, const char* indent = "") const {
    std::vector<size_t> width(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) {
      width[c] = columns_[c].title.size();
      for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
    }
    PrintRow(out, indent, Titles(), width);
    std::vector<std::string> rule(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) rule[c] = std::string(width[c], '-');
    PrintRow(out, indent, rule, width);
    for (const auto& row : rows_) PrintRow(out, indent, row, width);
  }

 private:
  std::vector<std::string> Titles() const {
    std::vector<std::string> t;
    for (const auto& c : columns_) t.push_back(c.title);
    return t;
  }

  void PrintRow(FILE* out, const char* indent, const std::vector<std::string>& cells,
                const std::vector<size_t>& width) const {
    std::string line = indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      const size_t pad = width[c] - cells[c].size();
      if (columns_[c].align == kRight) line.append(pad, ' ');
      line += cells[c];
      if (columns_[c].align == kLeft && c + 1 < cells.size()) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::fprintf(out, "%s\n", line.c_str());
  }

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// printf into a std::string.
inline std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string Format(const char* fmt, ...) {
  char buf[256];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof(buf)) return std::string(buf, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(s.data(), s.size(), fmt, args);
  va_end(args);
  s.resize(static_cast<size_t>(n));
  return s;
}

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_TEXT_TABLE_H_
