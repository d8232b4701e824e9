"""Contacts through the Python client: the new shapes, materials and contact
settings as dicts, and a stream's contact points and begin/end events."""

import linkage


def test_contact_events_keep_the_touching_pairs(client, world):
    client.update_world(world, dynamics="sequential_impulses", contacts=True)
    ground = client.create_body(world, name="ground", kind="rigid", motion="fixed",
                                shape={"segment": {"a": (-5, 0), "b": (5, 0)}})
    ball = client.create_body(world, name="ball", kind="rigid", position=(0, 0.5),
                              shape={"disk": {"radius": 0.1}}, material={"restitution": 0.8})
    client.create_body(world, name="capsule", kind="rigid", position=(1, 0.1),
                       shape={"capsule": {"radius": 0.1, "half_length": 0.3}})
    assert client.get_body(world, "ball")["def"]["material"]["restitution"] == 0.8
    assert client.get_world(world)["settings"]["contacts"] is True

    touching, begins, frames = set(), [], 0
    with client.stream(world, contacts=True) as stream:
        for snapshot in stream:
            if snapshot.contact_events_full:
                touching.clear()
            for event in snapshot.contact_events:
                assert isinstance(event, linkage.ContactEvent) and event.a < event.b
                if event.begin:
                    assert (event.a, event.b) not in touching
                    touching.add((event.a, event.b))
                    begins.append(event)
                else:
                    touching.remove((event.a, event.b))
            assert not snapshot.contacts_truncated
            points = {tuple(sorted((c.a, c.b))) for c in snapshot.contacts}
            assert touching == points, f"tick {snapshot.tick}"
            for c in snapshot.contacts:
                assert isinstance(c, linkage.Contact) and len(c.point) == 2 and c.normal_impulse >= 0
            frames += 1
            if frames == 1:
                client.step(world, 60)  # the ball falls, bounces; the capsule settles
            elif snapshot.tick >= 60:
                break
    assert (ground, ball) in {(e.a, e.b) for e in begins}, begins
    assert len(begins) >= 2  # the capsule too
