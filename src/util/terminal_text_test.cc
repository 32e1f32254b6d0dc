#include "util/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

#include "util/shell_word.h"

namespace gt {
namespace terminal_text_test {

TEST(ForTerminal, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(for_terminal("evil\x1b[31mRED\rOVERWRITE"), "evil\\e[31mRED\\rOVERWRITE");
  EXPECT_EQ(for_terminal("a\nb\tc"), "a\\nb\\tc");
  EXPECT_EQ(for_terminal(std::string("nul\0bel\a", 8)), "nul\\x00bel\\x07");
  EXPECT_EQ(for_terminal("del\x7f"), "del\\x7f");
  EXPECT_EQ(for_terminal("\x1b]0;pwned\x07\x1b[2J"), "\\e]0;pwned\\x07\\e[2J");
}

TEST(ForTerminal, ValidUtf8IsKeptInvalidBytesAreEscaped) {
  EXPECT_EQ(for_terminal("Llama-3 \xc3\xa9t\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x9a\x80"),
            "Llama-3 \xc3\xa9t\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x9a\x80");
  EXPECT_EQ(for_terminal("caf\xe9"), "caf\\xe9");                       // Latin-1
  EXPECT_EQ(for_terminal("\xc3"), "\\xc3");                             // cut short
  EXPECT_EQ(for_terminal("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(for_terminal("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // surrogate
  EXPECT_EQ(for_terminal("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // > U+10FFFF
  EXPECT_EQ(for_terminal("\xe2\x28\xa1"), "\\xe2(\\xa1");
}

TEST(ForTerminal, CharactersATerminalActsOnAreEscaped) {
  EXPECT_EQ(for_terminal("\xc2\x9b"
                         "2J"),
            "\\xc2\\x9b2J");  // C1 CSI
  EXPECT_EQ(for_terminal("a\xe2\x80\xae"
                         "b"),
            "a\\xe2\\x80\\xaeb");                              // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(for_terminal("\xe2\x81\xa6"), "\\xe2\\x81\\xa6");  // LEFT-TO-RIGHT ISOLATE
  EXPECT_EQ(for_terminal("\xe2\x80\xa8"), "\\xe2\\x80\\xa8");  // LINE SEPARATOR
  EXPECT_EQ(for_terminal("\xc2\xa0"), "\xc2\xa0");             // NBSP is shown
}

TEST(ForTerminal, PrintableTextIsUntouchedAndEscapingIsIdempotent) {
  EXPECT_EQ(for_terminal("python3 -m sglang.launch_server --tp 8 'a b' C:\\x"),
            "python3 -m sglang.launch_server --tp 8 'a b' C:\\x");
  EXPECT_EQ(for_terminal(""), "");
  const std::string hostile = "x\x1b[2J\r\n\xff\xc2\x9b\xe2\x80\xae y";
  EXPECT_EQ(for_terminal(for_terminal(hostile)), for_terminal(hostile));
  for (int c = 0; c < 256; ++c) {
    const std::string shown = for_terminal(std::string(1, static_cast<char>(c)));
    for (char ch : shown) EXPECT_TRUE(ch >= 0x20 && ch < 0x7F) << "byte " << c;
  }
}

TEST(ForTerminal, BinaryJunkIsBounded) {
  std::string junk;
  for (int i = 0; i < 400; ++i) junk += static_cast<char>(0x80 + i % 100);
  const std::string shown = for_terminal(junk, 40);
  EXPECT_LE(shown.size(), 40u + std::string("... (400 more bytes)").size());
  EXPECT_EQ(shown, "\\x80\\x81\\x82\\x83\\x84\\x85\\x86\\x87\\x88\\x89... (390 more bytes)");
  EXPECT_EQ(for_terminal("short", 40), "short");
  EXPECT_EQ(for_terminal("0123456789", 4), "0123... (6 more bytes)");
  // Cut between characters, never inside one.
  EXPECT_EQ(for_terminal("\xc3\xa9\xc3\xa9", 3), "\xc3\xa9... (2 more bytes)");
}

// A command shown with a hostile path is shown safely and still pastes as
// that path: bash reads $'...' with these escapes back to the same bytes.
TEST(ShellWord, AWordATerminalWouldActOnIsAnsiCQuoted) {
  EXPECT_EQ(shell_word("/data/run-0412"), "/data/run-0412");
  EXPECT_EQ(shell_word("/data/my run's"), "'/data/my run'\\''s'");
  EXPECT_EQ(shell_word("/data/\x1b[2Jx\ny"), "$'/data/\\e[2Jx\\ny'");
  EXPECT_EQ(shell_word("caf\xe9 'a\\b'"), "$'caf\\xe9 \\'a\\\\b\\''");
  EXPECT_EQ(for_terminal(shell_word("a\rb")), shell_word("a\rb"));
}

}  // namespace terminal_text_test
}  // namespace gt
