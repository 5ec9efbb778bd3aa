#include "allfives/engine/tree_search.h"

#include <cmath>

#include "worlds.h"

namespace allfives::engine {

namespace {

struct Node {
  int first_child = -1;
  int next_sibling = -1;
  int visits = 0;
  int available = 0;
  double total = 0;  // summed values for the side that made the play leading here
  uint8_t code = 0;  // that play: tile index * 2 + end
  uint8_t side = 0;
};

uint8_t code_of(Play p) {
  return static_cast<uint8_t>(p.tile.index() * 2 + (p.end == End::kRight ? 1 : 0));
}

class Tree {
 public:
  Tree(const TreeConfig& config, int root_side, Format format)
      : config_(config), root_side_(root_side), format_(format) {
    nodes_.reserve(4096);
    nodes_.push_back(Node{});
  }

  // One iteration in `world`: select, expand one play, roll out, back up.
  void iterate(State world, const Scorer& scorer, SplitMix64& rng) {
    path_.clear();
    int node = 0;
    const int hand = world.hand_index();
    while (!world.is_terminal() && world.hand_index() == hand) {
      const int next = select_or_expand(node, world, rng);
      if (next < 0) break;  // the tree is full here: the rollout takes over
      world.apply(play_of(nodes_[next].code));
      path_.push_back(next);
      if (nodes_[next].visits == 0) break;  // just added: the rollout takes over
      node = next;
    }
    while (!world.is_terminal() && world.hand_index() == hand)
      world.apply(rollout_pick(world, rng, config_.epsilon_permille));
    const double v = scorer.win(world);
    ++nodes_[0].visits;
    for (const int n : path_) {
      ++nodes_[n].visits;
      nodes_[n].total += nodes_[n].side == root_side_ ? v : 1 - v;
    }
  }

  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  static Play play_of(uint8_t code) {
    return Play{Tile::from_index(code / 2), code % 2 ? End::kRight : End::kLeft};
  }

  int child(int node, uint8_t code) const {
    for (int c = nodes_[node].first_child; c >= 0; c = nodes_[c].next_sibling)
      if (nodes_[c].code == code) return c;
    return -1;
  }

  // The child to follow from `node` in `world`: a legal play not yet tried (added, at random
  // among them), else the legal child of best UCB1 over its availability count; -1 when the
  // tree is full and no legal play is in it.
  int select_or_expand(int node, const State& world, SplitMix64& rng) {
    const PlayList& legal = world.legal_plays();
    const uint8_t side = static_cast<uint8_t>(side_of(format_, world.seat_to_move()));
    std::array<uint8_t, PlayList::kCapacity> untried{};
    int num_untried = 0, best = -1;
    double best_score = -1e300;
    std::array<int, PlayList::kCapacity> seen{};
    int num_seen = 0;
    for (const Play p : legal) {
      const uint8_t code = code_of(p);
      const int c = child(node, code);
      if (c < 0) {
        untried[num_untried++] = code;
      } else {
        seen[num_seen++] = c;
      }
    }
    for (int i = 0; i < num_seen; ++i) ++nodes_[seen[i]].available;
    if (num_untried > 0 && static_cast<int>(nodes_.size()) < config_.max_nodes) {
      Node fresh;
      fresh.code = untried[rng.below(static_cast<uint32_t>(num_untried))];
      fresh.side = side;
      fresh.available = 1;
      fresh.next_sibling = nodes_[node].first_child;
      nodes_.push_back(fresh);
      nodes_[node].first_child = static_cast<int>(nodes_.size()) - 1;
      return nodes_[node].first_child;
    }
    for (int i = 0; i < num_seen; ++i) {
      const Node& n = nodes_[seen[i]];
      const double score =
          n.total / n.visits + config_.exploration * std::sqrt(std::log(n.available) / n.visits);
      if (score > best_score) {
        best_score = score;
        best = seen[i];
      }
    }
    return best;
  }

  const TreeConfig& config_;
  int root_side_;
  Format format_;
  std::vector<Node> nodes_;
  std::vector<int> path_;
};

}  // namespace

TreeResult tree_search(const View& view, const Knowledge* knowledge, const TreeConfig& config,
                       const StopAt& stop) {
  TreeResult out;
  const PlayList& legal = view.legal_plays();
  const int n = legal.size();
  if (n == 0 || view.seat_to_move() != view.seat() || num_sides(view.config().format) != 2)
    return out;
  const WorldSampler sampler(view, knowledge);
  if (!sampler.ok()) return out;
  State world = State::new_match(view.config(), 0);
  WorldDraw draws(view, knowledge, sampler, config.candidates, config.model, world);
  const Scorer scorer(view);
  Tree tree(config, view.side(), view.config().format);
  for (int i = 0; i < std::max(1, config.iterations); ++i) {
    if (i > 0 && stop && stop(i)) break;
    SplitMix64 rng(derive_seed(config.seed, static_cast<uint64_t>(i)));
    if (!draws.draw(rng, world)) break;
    tree.iterate(world, scorer, rng);
    ++out.iterations;
  }
  out.ok = out.iterations > 0;
  out.visits.assign(static_cast<size_t>(n), 0);
  out.means.assign(static_cast<size_t>(n), 0.0);
  const std::vector<Node>& nodes = tree.nodes();
  for (int c = nodes[0].first_child; c >= 0; c = nodes[c].next_sibling) {
    for (int k = 0; k < n; ++k) {
      if (code_of(legal[k]) != nodes[c].code) continue;
      out.visits[k] = nodes[c].visits;
      out.means[k] = nodes[c].visits > 0 ? nodes[c].total / nodes[c].visits : 0;
    }
  }
  for (int k = 1; k < n; ++k)
    if (out.visits[k] > out.visits[out.best]) out.best = k;
  return out;
}

}  // namespace allfives::engine
