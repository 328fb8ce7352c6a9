"""``Tournament.is_simulation``: the tournaments ``manage.py tournament_simulate`` made, kept off the public
lists. Every existing row with a ``simulation_seed`` was made by it (real tournaments never have one)."""

from django.db import migrations, models


def mark(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(simulation_seed__isnull=False).update(is_simulation=True)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0003_simulation_seed")]
    operations = [
        migrations.AddField(
            model_name="tournament",
            name="is_simulation",
            field=models.BooleanField(default=False, editable=False, verbose_name="simulation"),
        ),
        migrations.RunPython(mark, migrations.RunPython.noop),
    ]
