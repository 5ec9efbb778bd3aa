// A UCI chess engine that plays a uniformly random legal move: the chess side of the
// like-for-like comparison in bench/per_decision.sh (FASTCHESS=... UCI_ENGINE=...), the
// counterpart of two random_bots under the referee. It is not part of the build: fastchess is
// not a dependency. Build it against the move generator fastchess ships (its single header
// app/third_party/chess.hpp), in a fastchess checkout:
//   g++ -O2 -std=c++17 -I app/third_party path/to/bench/random_uci.cpp -o random_uci
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "chess.hpp"

namespace {

// "position startpos|fen FEN [moves M...]": the board after those moves.
void set_position(chess::Board& board, std::istringstream& in) {
  std::string token;
  in >> token;
  if (token == "startpos") {
    board.setFen(chess::constants::STARTPOS);
    in >> token;
  } else if (token == "fen") {
    std::string fen, part;
    while (in >> part && part != "moves") fen += (fen.empty() ? "" : " ") + part;
    board.setFen(fen);
    token = part;
  } else {
    return;
  }
  if (token != "moves") return;
  while (in >> token) {
    const chess::Move m = chess::uci::uciToMove(board, token);
    if (m == chess::Move::NO_MOVE) break;
    board.makeMove(m);
  }
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::mt19937 rng(std::random_device{}());
  chess::Board board;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string command;
    if (!(in >> command)) continue;
    if (command == "uci") {
      std::cout << "id name random_uci\nid author allfives bench\nuciok" << std::endl;
    } else if (command == "isready") {
      std::cout << "readyok" << std::endl;
    } else if (command == "ucinewgame") {
      board.setFen(chess::constants::STARTPOS);
    } else if (command == "position") {
      set_position(board, in);
    } else if (command == "go") {
      chess::Movelist moves;
      chess::movegen::legalmoves(moves, board);
      if (moves.empty()) {
        std::cout << "bestmove 0000" << std::endl;
        continue;
      }
      std::uniform_int_distribution<int> pick(0, static_cast<int>(moves.size()) - 1);
      std::cout << "bestmove " << chess::uci::moveToUci(moves[pick(rng)], board.chess960())
                << std::endl;
    } else if (command == "quit") {
      break;
    }
  }
  return 0;
}
