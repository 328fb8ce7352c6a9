"""The four quick-pairing pools (docs/lobby.md "Pools"): 100 and 50 points, a normal (60 s) and a fast
(20 s) turn timer, rated and casual. Editable in the admin afterwards."""

from django.db import migrations

POOLS = [
    # slug, name, target, timer, rated, position
    ("100-60-rated", "100 points · 60 s · rated", 100, 60, True, 1),
    ("50-20-rated", "50 points · 20 s · rated", 50, 20, True, 2),
    ("100-60-casual", "100 points · 60 s · casual", 100, 60, False, 3),
    ("50-20-casual", "50 points · 20 s · casual", 50, 20, False, 4),
]


def create(apps, schema_editor):
    Pool = apps.get_model("lobby", "Pool")
    for slug, name, target, timer, rated, position in POOLS:
        Pool.objects.get_or_create(slug=slug, defaults={
            "name": name, "target": target, "turn_timer_seconds": timer, "rated": rated, "position": position,
        })


def remove(apps, schema_editor):
    apps.get_model("lobby", "Pool").objects.filter(slug__in=[p[0] for p in POOLS]).delete()


class Migration(migrations.Migration):
    dependencies = [("lobby", "0001_initial")]
    operations = [migrations.RunPython(create, remove)]
