/* src/humanoid/humanoid_twist.c - the twist joints of the limb segments
 * (include/rigkit/humanoid.h, "Twist joints"). */
#include "core/internal.h"
#include "rigkit/humanoid.h"

#include <ctype.h>
#include <string.h>

static const rk_humanoid_bone rki_twist_pairs[RK_HUMANOID_TWIST_SEGMENTS][2] = {
	{ RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM },
	{ RK_HUMANOID_LEFT_LOWER_ARM, RK_HUMANOID_LEFT_HAND },
	{ RK_HUMANOID_RIGHT_UPPER_ARM, RK_HUMANOID_RIGHT_LOWER_ARM },
	{ RK_HUMANOID_RIGHT_LOWER_ARM, RK_HUMANOID_RIGHT_HAND },
	{ RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG },
	{ RK_HUMANOID_LEFT_LOWER_LEG, RK_HUMANOID_LEFT_FOOT },
	{ RK_HUMANOID_RIGHT_UPPER_LEG, RK_HUMANOID_RIGHT_LOWER_LEG },
	{ RK_HUMANOID_RIGHT_LOWER_LEG, RK_HUMANOID_RIGHT_FOOT },
};

/* "twist" in any case; "Roll"; "roll" at the start or after a character
 * that is not a letter. */
static bool rki_twist_name(const char *name)
{
	if (!name) return false;
	for (const char *p = name; *p; p++) {
		static const char twist[] = "twist";
		size_t k = 0;
		while (k < 5 && p[k] && tolower((unsigned char)p[k]) == twist[k]) k++;
		if (k == 5) return true;
		if (!strncmp(p, "Roll", 4)) return true;
		if (!strncmp(p, "roll", 4) && (p == name || !isalpha((unsigned char)p[-1]))) return true;
	}
	return false;
}

static bool rki_twist_kind_ok(const rk_node *n)
{
	return n->kind != RK_NODE_ROOT && n->kind != RK_NODE_MESH && n->kind != RK_NODE_CAMERA &&
		n->kind != RK_NODE_LIGHT && !n->mesh;
}

static bool rki_is_ancestor(const rk_node *a, const rk_node *n)
{
	for (const rk_node *p = n; p; p = p->parent)
		if (p == a) return true;
	return false;
}

static bool rki_twist_mapped(const rk_humanoid *h, const rk_node *n)
{
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (h->bones[b] == n) return true;
	return false;
}

/* No humanoid bone in n's subtree (n included). */
static bool rki_twist_no_bone_below(const rk_humanoid *h, const rk_node *n)
{
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (h->bones[b] && rki_is_ancestor(n, h->bones[b])) return false;
	return true;
}

typedef struct rki_twist_candidate {
	const rk_node *node;
	bool in_chain;
	double along;
} rki_twist_candidate;

static void rki_twist_add(rki_twist_candidate *c, size_t *count, size_t cap, const rk_node *n, bool in_chain,
	rk_vec3 b, rk_vec3 d, double dd)
{
	if (*count >= cap) return;
	rk_vec3 p = rk_mat4_get_translation(n->node_to_world);
	double along = dd > 0.0 ? rk_vec3_dot(rk_vec3_sub(p, b), d) / dd : 0.0;
	c[(*count)++] = (rki_twist_candidate){ n, in_chain, along };
}

size_t rk_humanoid_find_twists(const rk_scene *scene, const rk_humanoid *h, rk_humanoid_twists *out)
{
	if (!out) return 0;
	memset(out, 0, sizeof(*out));
	for (int s = 0; s < RK_HUMANOID_TWIST_SEGMENTS; s++) {
		out->segments[s].bone = rki_twist_pairs[s][0];
		out->segments[s].child = rki_twist_pairs[s][1];
	}
	if (!scene || !h) return 0;
	for (int s = 0; s < RK_HUMANOID_TWIST_SEGMENTS; s++) {
		rk_humanoid_twist_segment *seg = &out->segments[s];
		const rk_node *bn = h->bones[seg->bone], *cn = h->bones[seg->child];
		if (!bn || !cn || bn == cn || !rki_is_ancestor(bn, cn)) continue;
		enum { CAP = 64 };
		rki_twist_candidate cand[CAP];
		size_t count = 0, total = 0;
		rk_vec3 pb = rk_mat4_get_translation(bn->node_to_world);
		rk_vec3 d = rk_vec3_sub(rk_mat4_get_translation(cn->node_to_world), pb);
		double dd = rk_vec3_dot(d, d);
		bool bad = false;
		for (const rk_node *p = cn->parent; p && p != bn; p = p->parent)
			if (rki_twist_mapped(h, p) || !rki_twist_kind_ok(p)) bad = true;
		if (bad) continue;
		for (const rk_node *p = cn->parent; p && p != bn; p = p->parent) {
			total++;
			rki_twist_add(cand, &count, CAP, p, true, pb, d, dd);
		}
		for (size_t i = 0; i < bn->children.count; i++) {
			const rk_node *c = bn->children.data[i];
			if (rki_is_ancestor(c, cn) || !rki_twist_kind_ok(c) || !rki_twist_name(c->name) ||
				!rki_twist_no_bone_below(h, c))
				continue;
			total++;
			rki_twist_add(cand, &count, CAP, c, false, pb, d, dd);
		}
		/* insertion sort by (along, node index) */
		for (size_t i = 1; i < count; i++) {
			rki_twist_candidate x = cand[i];
			size_t j = i;
			while (j > 0 && (cand[j - 1].along > x.along ||
				(cand[j - 1].along == x.along && cand[j - 1].node->index > x.node->index))) {
				cand[j] = cand[j - 1];
				j--;
			}
			cand[j] = x;
		}
		/* every in-chain joint, then leaf joints in order, up to the cap (a
		 * segment with more in-chain joints than that gets none: one left
		 * untwisted in the chain would turn the ones below it) */
		size_t chain = 0;
		for (size_t i = 0; i < count; i++) chain += cand[i].in_chain;
		size_t keep = 0, leaves = 0;
		if (chain <= RK_HUMANOID_MAX_TWIST && total == count) {
			for (size_t i = 0; i < count; i++) {
				if (!cand[i].in_chain && leaves++ >= RK_HUMANOID_MAX_TWIST - chain) continue;
				seg->joints[keep] = cand[i].node;
				seg->in_chain[keep] = cand[i].in_chain;
				keep++;
			}
		}
		seg->count = keep;
		out->joint_count += keep;
		out->ignored += total - keep;
	}
	return out->joint_count;
}
