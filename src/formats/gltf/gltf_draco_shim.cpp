// src/formats/gltf/gltf_draco_shim.cpp - libdraco behind the C API of
// gltf_draco.h. The only C++ translation unit of rigkit: it decodes, copies
// out and frees; every check of the glTF side is in gltf_draco.c.
#include "gltf_draco.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include <draco/compression/decode.h>
#include <draco/core/decoder_buffer.h>
#include <draco/mesh/mesh.h>

struct rki_draco_mesh {
	std::unique_ptr<draco::Mesh> mesh;
};

static void rki_draco_msg(char *msg, size_t cap, const char *what, const char *detail)
{
	if (cap == 0) return;
	std::snprintf(msg, cap, "%s%s%s", what, detail && detail[0] ? ": " : "", detail ? detail : "");
}

extern "C" rki_draco_mesh *rki_draco_decode(const unsigned char *data, size_t size, char *msg, size_t cap)
{
	try {
		draco::DecoderBuffer buf;
		buf.Init(reinterpret_cast<const char *>(data), size);
		auto type = draco::Decoder::GetEncodedGeometryType(&buf);
		if (!type.ok()) {
			rki_draco_msg(msg, cap, "not a Draco stream", type.status().error_msg());
			return nullptr;
		}
		if (type.value() != draco::TRIANGULAR_MESH) {
			rki_draco_msg(msg, cap, "the Draco stream is a point cloud, not a triangle mesh", "");
			return nullptr;
		}
		draco::Decoder decoder;
		auto res = decoder.DecodeMeshFromBuffer(&buf);
		if (!res.ok()) {
			rki_draco_msg(msg, cap, "the Draco stream does not decode", res.status().error_msg());
			return nullptr;
		}
		std::unique_ptr<rki_draco_mesh> out(new rki_draco_mesh);
		out->mesh = std::move(res).value();
		if (!out->mesh) {
			rki_draco_msg(msg, cap, "the Draco stream decodes to no mesh", "");
			return nullptr;
		}
		return out.release();
	} catch (const std::bad_alloc &) {
		rki_draco_msg(msg, cap, "out of memory decoding the Draco stream", "");
	} catch (...) {
		rki_draco_msg(msg, cap, "the Draco decoder failed", "");
	}
	return nullptr;
}

extern "C" void rki_draco_free(rki_draco_mesh *m)
{
	delete m;
}

extern "C" uint32_t rki_draco_point_count(const rki_draco_mesh *m)
{
	return m->mesh->num_points();
}

extern "C" uint32_t rki_draco_face_count(const rki_draco_mesh *m)
{
	return m->mesh->num_faces();
}

extern "C" void rki_draco_indices(const rki_draco_mesh *m, uint32_t *dst)
{
	uint32_t n = m->mesh->num_faces();
	for (uint32_t f = 0; f < n; f++) {
		const draco::Mesh::Face &face = m->mesh->face(draco::FaceIndex(f));
		for (int c = 0; c < 3; c++) dst[3 * f + c] = face[c].value();
	}
}

template <typename T>
static int rki_draco_copy(const draco::PointAttribute *a, uint32_t points, uint32_t components, unsigned char *dst)
{
	T value[16];
	for (uint32_t p = 0; p < points; p++) {
		draco::AttributeValueIndex avi = a->mapped_index(draco::PointIndex(p));
		if (avi.value() >= a->size()) return RKI_DRACO_BAD_VALUE;
		if (!a->ConvertValue<T>(avi, static_cast<int8_t>(components), value)) return RKI_DRACO_BAD_VALUE;
		std::memcpy(dst + static_cast<size_t>(p) * components * sizeof(T), value, components * sizeof(T));
	}
	return RKI_DRACO_OK;
}

extern "C" int rki_draco_attribute(const rki_draco_mesh *m, uint32_t unique_id, uint32_t ctype, uint32_t components, void *dst,
	uint32_t *have)
{
	const draco::PointAttribute *a = m->mesh->GetAttributeByUniqueId(unique_id);
	*have = 0;
	if (!a) return RKI_DRACO_NO_ATTRIBUTE;
	*have = a->num_components();
	if (components == 0 || components > 16) return RKI_DRACO_BAD_TYPE;
	uint32_t n = m->mesh->num_points();
	unsigned char *out = static_cast<unsigned char *>(dst);
	switch (ctype) {
	case 5120: return rki_draco_copy<int8_t>(a, n, components, out);
	case 5121: return rki_draco_copy<uint8_t>(a, n, components, out);
	case 5122: return rki_draco_copy<int16_t>(a, n, components, out);
	case 5123: return rki_draco_copy<uint16_t>(a, n, components, out);
	case 5125: return rki_draco_copy<uint32_t>(a, n, components, out);
	case 5126: return rki_draco_copy<float>(a, n, components, out);
	default: return RKI_DRACO_BAD_TYPE;
	}
}
